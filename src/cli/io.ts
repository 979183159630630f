import type { StateStore } from '../state/types.js';

/**
 * What a command may touch of the outside world. main.ts builds it from the
 * process; tests build it from buffers. Commands never use process.* directly.
 */
export interface OutputStream {
  write(chunk: string): unknown;
  /** True when the stream is an interactive terminal (colours, live progress, prompts). */
  isTTY?: boolean;
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
  /** Set by multi-environment runs (fleet.ts): receives one environment's figures as a command learns them. */
  report?: (figures: RunFigures) => void;
}

/** What plan and apply tell a multi-environment run about one environment. */
export interface RunFigures {
  /** Where the state is (the store's description). */
  state?: string;
  /** The API base URL apply sends to. */
  target?: string;
  /** Changes in the plan (everything but no-ops). */
  changes?: number;
  /** Apply: operations done, failed and not attempted. */
  done?: number;
  failed?: number;
  notAttempted?: number;
  /** Apply: HTTP requests sent, and how many were answered 429. */
  requests?: number;
  status429?: number;
}

/** Exit code when the user stops a command with Ctrl+C (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/**
 * Locks this process holds right now (see withLockedState). While one is
 * held, a second Ctrl+C does not kill the process: it would leave the lock
 * behind; the command stops at the next safe point and releases it.
 */
export const heldLocks = { count: 0 };

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
export function writeChunks(out: OutputStream, chunks: Iterable<string>): void {
  let batch = '';
  for (const chunk of chunks) {
    batch += chunk;
    if (batch.length >= 65_536) {
      out.write(batch);
      batch = '';
    }
  }
  if (batch !== '') out.write(batch);
}
