import { createInterface } from 'node:readline/promises';

/** Asks a yes/no question on the terminal; only "yes" approves (as Terraform does). */
export async function confirmOnTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} Only 'yes' will be accepted: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}
