/**
 * What the state commands do to a state, as data: its records with their
 * problems (`state list`, `state show`), one record removed (`state rm`),
 * the journal repaired under the lock (`state repair`), a lock looked at and
 * removed (`force-unlock`). Each takes only the part of the store it uses;
 * src/cli words the results and asks the questions.
 */
import type { RecordedResource } from '../resources/index.js';
import { recordIssues } from './integrity.js';
import { holderStatus } from './lock-holder.js';
import type { StateSession } from './session.js';
import type { LockInfo, StateDocument, StateJournal, StateLocker } from './types.js';

/** One record as `state list` shows it: its problems are those of the integrity checks. */
export interface RecordLine {
  address: string;
  id: string | null;
  adopted: boolean;
  problems: string[];
}

/** Every record of `doc` (none: null or empty), with the problems each has. */
export function recordLines(doc: StateDocument | null): RecordLine[] {
  const resources = doc?.resources ?? [];
  const issues = recordIssues(resources);
  return resources.map((r) => ({
    address: r.address,
    id: r.id,
    adopted: r.adopted === true,
    problems: issues.filter((i) => i.address === r.address).map((i) => i.problem),
  }));
}

/** The record at `address` with its problems, or null when the state has none there. */
export function recordAt(
  doc: StateDocument | null,
  address: string,
): { record: RecordedResource; problems: string[] } | null {
  const record = doc?.resources.find((r) => r.address === address);
  if (!record) return null;
  const problems = recordIssues(doc!.resources)
    .filter((i) => i.address === address)
    .map((i) => i.problem);
  return { record, problems };
}

/** Removes the record at `address` and commits; false when the state has none there. */
export async function removeRecord(
  session: Pick<StateSession, 'doc' | 'record' | 'commit'>,
  address: string,
): Promise<boolean> {
  if (!session.doc.resources.some((r) => r.address === address)) return false;
  await session.record({ op: 'remove', address });
  await session.commit();
  return true;
}

/** What `repairJournal` did: nothing when the backend keeps no journal file, else the repair's result. */
export type JournalRepair =
  { kind: 'no-journal-file' } | { kind: 'repaired'; kept: number; dropped: number[]; backup: string | null };

/**
 * Rewrites a journal damaged in the middle, keeping every complete entry,
 * under the lock taken for `holder` (waiting up to `timeoutMs`); the lock is
 * released whatever happens.
 */
export async function repairJournal(
  store: StateLocker & Pick<StateJournal, 'repairJournal'>,
  holder: Omit<LockInfo, 'id'>,
  timeoutMs: number,
): Promise<JournalRepair> {
  if (!store.repairJournal) return { kind: 'no-journal-file' };
  const lock = await store.lock(holder, { timeoutMs });
  try {
    return { kind: 'repaired', ...(await store.repairJournal()) };
  } finally {
    await store.unlock(lock.id);
  }
}

/** Who holds the lock: nobody, someone the backend cannot name, or a holder and whether it still runs. */
export type LockHolding =
  | { kind: 'unlocked' }
  | { kind: 'unknown' }
  | { kind: 'held'; holder: LockInfo; status: 'running' | 'gone' | 'unknown' };

export async function lockHolding(store: Pick<StateLocker, 'lockHolder'>): Promise<LockHolding> {
  const current = store.lockHolder ? await store.lockHolder() : undefined;
  if (current === null) return { kind: 'unlocked' };
  if (current === undefined) return { kind: 'unknown' };
  return { kind: 'held', holder: current, status: holderStatus(current) };
}

/** Removes the lock: the holder it had (and whether that one is gone), or null when there was none. */
export async function removeLock(
  store: Pick<StateLocker, 'forceUnlock'>,
): Promise<{ holder: LockInfo; gone: boolean } | null> {
  const holder = await store.forceUnlock();
  return holder ? { holder, gone: holderStatus(holder) === 'gone' } : null;
}
