import { CliError, EXIT_PLAN_REFUSED, StopRequest, stopExitCode, type CommandIO } from './io.js';
import { RunError } from '../run/errors.js';
import { messageOf, runErrorMessage } from './run-words.js';

/**
 * Maps any error that reached the CLI to a message and an exit code. Typed
 * errors (with a string `code`) are the user's to act on; anything else is a
 * bug and says so.
 */
export function reportError(err: unknown, io: CommandIO): number {
  if (err instanceof StopRequest) {
    // Ctrl+C, SIGTERM or a closed output stopped the command before it finished: nothing more to say.
    if (err.kind === 'signal') io.stderr.write('Interrupted.\n');
    return stopExitCode(err);
  }
  if (err instanceof CliError) {
    io.stderr.write(`Error: ${cutEchoes(err.message)}\n`);
    return err.exitCode;
  }
  if (err instanceof RunError) {
    io.stderr.write(`Error: ${cutEchoes(runErrorMessage(err))}\n`);
    // A saved plan refused: nothing was locked, recorded or sent, and planning again is the way on.
    return err.problem.code === 'PLAN_REFUSED' ? EXIT_PLAN_REFUSED : err.exitCode;
  }
  if (err instanceof Error && typeof (err as { code?: unknown }).code === 'string') {
    io.stderr.write(`Error: ${cutEchoes(messageOf(err))}\n`);
    return 1;
  }
  const message = err instanceof Error ? err.message : String(err);
  io.stderr.write(`Error (internal, please report): ${cutEchoes(message)}\n`);
  return 1;
}

/** Longest run without a space that a message shows whole (a long URL or path still fits). */
const MAX_ECHO = 200;

/**
 * A message with every run of more than MAX_ECHO non-space characters (an id,
 * a path or a value given on the command line, echoed back) cut to its start
 * and end, saying how long it was: an error stays one readable line.
 */
export function cutEchoes(message: string): string {
  return message.replace(
    new RegExp(`\\S{${MAX_ECHO + 1},}`, 'g'),
    (run) => `${run.slice(0, 120)}…(${run.length} characters)…${run.slice(-40)}`,
  );
}
