import { createInterface } from 'node:readline/promises';
import { CliError, EXIT_INTERRUPTED } from './io.js';

/**
 * Asks a yes/no question on the terminal; only "yes" approves (as Terraform
 * does). Ctrl+C (or Ctrl+D) at the question cancels: a CliError with exit 130
 * that says nothing was sent.
 */
export async function confirmOnTerminal(
  question: string,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<boolean> {
  const rl = createInterface({ input, output });
  const cancelled = new AbortController();
  rl.once('SIGINT', () => cancelled.abort());
  rl.once('close', () => cancelled.abort());
  try {
    const answer = await rl.question(`${question} Only 'yes' will be accepted: `, {
      signal: cancelled.signal,
    });
    return answer.trim() === 'yes';
  } catch (err) {
    if (!cancelled.signal.aborted) throw err;
    output.write('\n');
    throw new CliError(
      'cancelled at the question (Ctrl+C); nothing was sent',
      EXIT_INTERRUPTED,
      'INTERRUPTED',
    );
  } finally {
    rl.close();
  }
}
