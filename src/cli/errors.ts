import { CliError, type CommandIO } from './io.js';

/**
 * Maps any error that reached the CLI to a message and an exit code. Typed
 * errors (with a string `code`) are the user's to act on; anything else is a
 * bug and says so.
 */
export function reportError(err: unknown, io: CommandIO): number {
  if (err instanceof CliError) {
    io.stderr.write(`Error: ${err.message}\n`);
    return err.exitCode;
  }
  if (err instanceof Error && typeof (err as { code?: unknown }).code === 'string') {
    io.stderr.write(`Error: ${err.message}\n`);
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`Error (internal, please report): ${message}\n`);
  return 1;
}
