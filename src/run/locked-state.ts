/**
 * The state as a run reads and locks it: the journal and rescue files a run
 * finds replayed (in memory for a read, into the state under the lock), what
 * it found and did said as notices (RunNotice: a takeover, rescue files
 * replayed, kept or skipped), never as text.
 */
import type { RescueFile, StateDocument, StateSession } from '../state/index.js';
import type { StateStore } from '../state/types.js';
import type { RunIO } from './requests.js';

/**
 * Locks this process holds right now. While one is held, a second Ctrl+C
 * does not kill the process (src/cli's signal handling reads it): it would
 * leave the lock behind; the run stops at the next safe point and releases it.
 */
export const heldLocks = { count: 0 };

/** The rescue files left for this store (see state/rescue.ts); unreadable ones are said and left. */
async function rescueFilesFor(
  store: StateStore,
  io: Pick<RunIO, 'notice'> | undefined,
): Promise<RescueFile[]> {
  const { findRescueFiles } = await import('../state/index.js');
  const found = await findRescueFiles(store);
  for (const problem of found.problems) io?.notice({ kind: 'rescue-unreadable', problem });
  return found.files;
}

/**
 * The state as plan and state list/show see it: stored document, pending
 * journal and rescue files applied in memory, nothing written.
 */
export async function readStateWithRescue(
  store: StateStore,
  io: Pick<RunIO, 'notice'>,
  options: { skipRecordChecks?: boolean } = {},
): Promise<StateDocument | null> {
  const { readStateSnapshotWithRescue } = await import('../state/index.js');
  const snapshot = await readStateSnapshotWithRescue(store, {
    rescue: await rescueFilesFor(store, io),
    skipRecordChecks: options.skipRecordChecks,
  });
  io.notice({ kind: 'rescued', rescued: snapshot.rescued, into: 'read' });
  return snapshot.doc;
}

/** How a run locks the state. */
export interface LockRequest {
  /** How long to wait for the lock, in ms. */
  lockTimeoutMs: number;
  /** A rescue file named by the command, replayed with those found. */
  rescue?: RescueFile;
  /** Opens a state with records that fail the integrity checks (state rm). */
  skipRecordChecks?: boolean;
}

/**
 * Runs `fn` with the state locked for `command` (waiting up to
 * `lockTimeoutMs`), leftover journal and rescue files replayed, and the lock
 * released afterwards whatever happens. `io` (when given) hears the notices.
 */
export async function withLockedState<T>(
  store: StateStore,
  command: string,
  lock: LockRequest,
  io: Pick<RunIO, 'notice'> | undefined,
  fn: (session: StateSession) => Promise<T>,
): Promise<T> {
  const { openState } = await import('../state/index.js');
  // Looked for once the lock is held: a file written while this waited (by an
  // apply whose lock it took over) is replayed before anything is sent.
  const rescue = async (): Promise<RescueFile[]> => {
    const found = await rescueFilesFor(store, io);
    if (lock.rescue && !found.some((r) => r.path === lock.rescue!.path)) found.push(lock.rescue);
    return found;
  };
  const session = await openState(store, {
    command,
    lockTimeoutMs: lock.lockTimeoutMs,
    rescue,
    skipRecordChecks: lock.skipRecordChecks,
    onTakeover: (holder, replayed, how) => io?.notice({ kind: 'lock-takeover', holder, replayed, how }),
  });
  heldLocks.count += 1;
  try {
    io?.notice({ kind: 'rescued', rescued: session.rescued, into: 'state' });
    return await fn(session);
  } finally {
    try {
      await session.release();
    } finally {
      heldLocks.count -= 1;
    }
  }
}
