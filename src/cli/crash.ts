/**
 * Crash handling for the real process: an uncaught exception or unhandled
 * rejection prints one line, releases the state locks this process holds and
 * exits 70, so that a bug never leaves a stale lock behind.
 */
import { releaseHeldLocks } from '../state/held-locks.js';

/** Exit code of a crash, as for an internal error in bin/tenantform.js. */
export const CRASH_EXIT_CODE = 70;

/** Installs the handlers; the returned function removes them. */
export function releaseLocksOnCrash(stderr: { write(text: string): unknown }): () => void {
  let crashed = false;
  const onCrash = (err: unknown): void => {
    if (crashed) return;
    crashed = true;
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    stderr.write(`Error (internal, please report): ${detail}\n`);
    void releaseHeldLocks().then(
      (released) => {
        if (released > 0) stderr.write('The state lock was released; run the command again to continue.\n');
        process.exit(CRASH_EXIT_CODE);
      },
      () => process.exit(CRASH_EXIT_CODE),
    );
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  return () => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  };
}
