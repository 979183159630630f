import type { StateStore } from '../state/types.js';

/**
 * What a command may touch of the outside world. main.ts builds it from the
 * process; tests build it from buffers. Commands never use process.* directly.
 */
export interface OutputStream {
  write(chunk: string): unknown;
  /** True when the stream is an interactive terminal (colours, live progress, prompts). */
  isTTY?: boolean;
  /**
   * True once its reader went away (EPIPE, or any other write error): bulk
   * output stops there, and what is still written goes to the other stream
   * (see guardOutput in process.ts).
   */
  readonly closed?: boolean;
}

export interface CommandIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Asks a yes/no question on the terminal; undefined when there is no interactive input. */
  confirm?: (question: string) => Promise<boolean>;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); for long-running commands. */
  signal?: AbortSignal;
  /**
   * Opens the file state backend at an absolute path. Absent (the shipped CLI):
   * the standard store, which fsyncs every journal append. Tests and the bench
   * (bench/cli-entry.mjs: the cost of that fsync) inject their own.
   */
  openFileStore?: (path: string) => StateStore;
}

/**
 * Exit code of `apply PLANFILE` when it refuses the saved plan (stale, edited,
 * unsealed, made for another state, target or API profile): nothing was
 * locked, recorded or sent, and planning again is the way on. CI tells it
 * apart from a failed apply by this code.
 */
export const EXIT_PLAN_REFUSED = 4;

/** Exit code when the user stops a command with Ctrl+C (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/**
 * Exit code when standard output or error was closed under a run (the reader
 * of a pipe went away, as with `| head`): 128 + SIGPIPE, as shells report a
 * command that a closed pipe stopped. A run whose output was cut short never
 * exits 0.
 */
export const EXIT_OUTPUT_CLOSED = 141;

/**
 * Why a run is asked to stop (the reason of CommandIO.signal): Ctrl+C or
 * SIGTERM, or an output stream closed under it. Either way apply stops
 * sending, records the answers in flight and releases the lock. A signal
 * wins over a closed output: Ctrl+C under `| tee` closes the pipe with the
 * same keystroke, in either order, and is an interruption (130).
 */
export class StopRequest extends Error {
  override readonly name = 'AbortError';
  private signalled: boolean;
  constructor(first: 'signal' | 'output', message: string) {
    super(message);
    this.signalled = first === 'signal';
  }

  get kind(): 'signal' | 'output' {
    return this.signalled ? 'signal' : 'output';
  }

  /** Notes a Ctrl+C or SIGTERM; false when one had come before (the user pressed again). */
  noteSignal(): boolean {
    if (this.signalled) return false;
    this.signalled = true;
    return true;
  }
}

/** What stopped the run, or null when nothing asked it to stop. */
export function stopRequested(signal: AbortSignal | undefined): StopRequest | null {
  if (!signal?.aborted) return null;
  const reason: unknown = signal.reason;
  return reason instanceof StopRequest ? reason : new StopRequest('signal', 'interrupted');
}

/** The exit code of a run that `stop` ended early: 130 for a signal, 141 for a closed output. */
export function stopExitCode(stop: StopRequest): number {
  return stop.kind === 'output' ? EXIT_OUTPUT_CLOSED : EXIT_INTERRUPTED;
}

/** Locks this process holds right now (see withLockedState in src/run): a second Ctrl+C then waits. */
export { heldLocks } from '../run/locked-state.js';

/** An error a command reports to the user as-is, with the exit code to use. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly code = 'CLI_ERROR',
  ) {
    super(message);
  }
}

/** Writes pieces of text in batches of about 64 KiB: large output without one huge string. */
/** Once the stream is closed (its reader went away), the rest is not written anywhere. */
export function writeChunks(out: OutputStream, chunks: Iterable<string>): void {
  let batch = '';
  for (const chunk of chunks) {
    if (out.closed) return;
    batch += chunk;
    if (batch.length >= 65_536) {
      out.write(batch);
      batch = '';
    }
  }
  if (batch !== '' && !out.closed) out.write(batch);
}
