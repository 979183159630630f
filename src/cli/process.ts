/**
 * The real process around main(): Ctrl+C and SIGTERM, standard output or
 * error closed under a run (EPIPE, or any other write error), and the exit.
 * Tests run main() with their own CommandIO and never touch these.
 *
 * Both kinds of trouble stop a run the same way: the AbortController of its
 * CommandIO is aborted with a StopRequest, so apply sends nothing new,
 * records the answers in flight and releases the lock before it returns.
 */
import { EXIT_INTERRUPTED, heldLocks, StopRequest, stopRequested, type OutputStream } from './io.js';

type StreamName = 'stdout' | 'stderr';

const STREAM_WORDS: Record<StreamName, string> = {
  stdout: 'standard output',
  stderr: 'standard error',
};

/** The process's own streams, as far as the guard uses them. */
export interface RawStream {
  write(chunk: string): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly errored?: Error | null;
  readonly isTTY?: boolean;
}

export interface GuardedOutput {
  stdout: OutputStream;
  stderr: OutputStream;
  /** The first stream found closed, in words ("standard output"), or null. */
  closed(): string | null;
}

/**
 * Wraps stdout and stderr so that a write error never kills the run or goes
 * unnoticed: the stream is marked closed, the run is asked to stop
 * (`controller`), and whatever is written to it afterwards goes to the other
 * stream while that one works. The write that failed is passed on too when
 * the run was already stopping (Ctrl+C under `| tee` closes the pipe with the
 * same keystroke, and its summary must still show); otherwise it is output the
 * reader walked away from, and is dropped.
 */
export function guardOutput(
  controller: AbortController,
  raw: Record<StreamName, RawStream> = { stdout: process.stdout, stderr: process.stderr },
): GuardedOutput {
  const broken: Record<StreamName, boolean> = { stdout: false, stderr: false };
  let first: StreamName | null = null;
  const markClosed = (name: StreamName): void => {
    if (broken[name]) return;
    broken[name] = true;
    first ??= name;
    if (!controller.signal.aborted) {
      controller.abort(new StopRequest('output', `${STREAM_WORDS[name]} was closed`));
    }
  };
  /** Writes `chunk` to `name`; false when the stream is, or just turned out, closed. */
  const attempt = (name: StreamName, chunk: string): boolean => {
    if (broken[name]) return false;
    try {
      raw[name].write(chunk);
    } catch {
      markClosed(name);
      return false;
    }
    // A failed write marks the stream errored at once; the 'error' event follows later.
    if (raw[name].errored) markClosed(name);
    return !broken[name];
  };
  for (const name of ['stdout', 'stderr'] as const) raw[name].on('error', () => markClosed(name));
  const writer = (name: StreamName, other: StreamName): OutputStream => ({
    isTTY: raw[name].isTTY === true,
    get closed() {
      return broken[name];
    },
    write(chunk: string) {
      if (broken[name]) return attempt(other, chunk);
      const stopping = controller.signal.aborted;
      if (attempt(name, chunk)) return true;
      return stopping ? attempt(other, chunk) : false;
    },
  });
  return {
    stdout: writer('stdout', 'stderr'),
    stderr: writer('stderr', 'stdout'),
    closed: () => (first === null ? null : STREAM_WORDS[first]),
  };
}

/**
 * Ctrl+C and SIGTERM: the first asks the run to stop at the next safe point
 * (after a closed output did, it makes the stop an interruption); a later one
 * exits at once (130), except while a state lock is held: dying
 * then would leave the lock behind. The returned function hands the signals
 * to a handler that only exits 130, for the moments between main() and the
 * exit. Handlers are added before others are removed: between the two, Node
 * would restore the default action, and a signal then would kill the process.
 */
export function watchSignals(controller: AbortController, stderr: OutputStream): () => void {
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      controller.abort(new StopRequest('signal', 'interrupted'));
      return;
    }
    // The run was stopping for a closed output: this is the first press all the same.
    if (stopRequested(controller.signal)?.noteSignal()) return;
    if (heldLocks.count === 0) process.exit(EXIT_INTERRUPTED);
    stderr.write(
      '\nStill stopping: waiting for the requests in flight so that their answers are recorded, then releasing the lock.\n',
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.on('SIGINT', exitInterrupted);
    process.on('SIGTERM', exitInterrupted);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

function exitInterrupted(): never {
  process.exit(EXIT_INTERRUPTED);
}

/**
 * Ends the process with `code` once stdout and stderr have passed on what
 * was written to them. The process exits explicitly rather than when its
 * event loop runs dry: on that way out Node closes its signal handlers before
 * the process is gone, and a Ctrl+C in that moment killed it by the signal
 * (no exit code) instead of ending it with 130.
 */
export async function exitWhenFlushed(
  code: number,
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): Promise<never> {
  await Promise.all(streams.map(flushed));
  process.getBuiltinModule('node:module').flushCompileCache?.();
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.errored || stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
