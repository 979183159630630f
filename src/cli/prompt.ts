import type * as Readline from 'node:readline/promises';
import { CliError, EXIT_INTERRUPTED } from './io.js';

// Reached when a question is asked, not imported: an apply's code holds this
// module, and a run with --auto-approve (or a plan) asks nothing.
const readline = (): typeof Readline => process.getBuiltinModule('node:readline/promises');

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
  const rl = readline().createInterface({ input, output });
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
