/**
 * Moving a state between stores (file → pg workspace, or any pair): both are
 * locked, the source's leftover journal is replayed into the copy, and a
 * target that holds another state is refused unless forced. The source is
 * read only, never changed.
 */
import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { applyJournal, emptyState } from '../document.js';
import { StateError } from '../errors.js';
import type { LockInfo, SessionStore, SnapshotSource, StateDocument, StateLocker } from '../types.js';

export interface MigrateOptions {
  /** Replace a target that holds another lineage, a newer serial or an uncompacted journal. */
  force?: boolean;
  /** How long to wait for either lock; 0 (default) fails at once. */
  lockTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
}

export interface MigrateResult {
  /** Resources in the copied document. */
  resources: number;
  /** Serial of the document now stored in the target. */
  serial: number;
}

/** A migration that cannot start: nothing to copy, or source and target are one store. */
export class MigrateError extends Error {
  override readonly name = 'MigrateError';
  readonly code = 'STATE_MIGRATE';
}

function summary(doc: StateDocument): string {
  return `lineage ${doc.lineage}, serial ${doc.serial}, ${doc.resources.length} resources`;
}

/** The source as one document: its stored state with its leftover journal replayed. */
async function sourceDocument(from: SnapshotSource): Promise<StateDocument> {
  const stored = await from.read();
  const journal = await from.readJournal();
  if (!stored && journal.length === 0) {
    throw new MigrateError(
      `${from.description} holds no state and no journal: nothing to migrate (check the path)`,
    );
  }
  const base = stored ?? emptyState(journal[0]!.lineage);
  if (journal.length === 0) return base;
  return { ...applyJournal(base, journal, `the journal of ${from.description}`), serial: base.serial + 1 };
}

/** Why the target must not be overwritten without force, or null when it may be. */
function refusal(
  doc: StateDocument,
  target: StateDocument | null,
  pendingEntries: number,
  where: string,
): string | null {
  if (pendingEntries > 0)
    return `${where} has ${pendingEntries} journal entries not yet compacted into its state`;
  if (!target) return null;
  if (target.lineage !== doc.lineage) return `${where} already holds another state (${summary(target)})`;
  if (target.serial > doc.serial) return `${where} holds a newer version of this state (${summary(target)})`;
  if (target.serial === doc.serial && !isDeepStrictEqual(target.resources, doc.resources)) {
    return `${where} holds a different document with the same serial (${summary(target)})`;
  }
  return null;
}

/**
 * Copies `from` into `to` under both locks (source first). Returns what the
 * target now holds. Running it again after success changes nothing.
 */
export async function migrateState(
  from: SnapshotSource & StateLocker,
  to: SessionStore,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  if (from.description === to.description) {
    throw new MigrateError(`source and target are the same state (${from.description})`);
  }
  const now = options.now ?? (() => new Date());
  const lockAs = (store: StateLocker): Promise<LockInfo> =>
    store.lock(
      { pid: process.pid, host: hostname(), command: 'state migrate', since: now().toISOString() },
      { timeoutMs: options.lockTimeoutMs ?? 0, sleep: options.sleep },
    );

  const fromLock = await lockAs(from);
  try {
    const toLock = await lockAs(to);
    try {
      const doc = await sourceDocument(from);
      const target = await to.read();
      const pending = (await to.readJournal()).length;
      const refused = refusal(doc, target, pending, to.description);
      if (refused && !options.force) {
        throw new StateError(
          'STATE_CONFLICT',
          `${refused}; nothing was copied. Migrating ${from.description} (${summary(doc)}) would replace it: pass --force to do so.`,
        );
      }
      if (!refused && target && target.serial === doc.serial) {
        return { resources: target.resources.length, serial: target.serial };
      }
      // The same lineage must keep moving forward, even when forced over a newer copy.
      const serial =
        target && target.lineage === doc.lineage
          ? Math.max(doc.serial, target.serial + 1)
          : Math.max(doc.serial, 1);
      const next: StateDocument = { ...doc, serial };
      if (pending > 0) await to.clearJournal();
      await to.write(next, target ? { lineage: target.lineage, serial: target.serial } : null);
      return { resources: next.resources.length, serial: next.serial };
    } finally {
      await to.unlock(toLock.id).catch(() => undefined);
    }
  } finally {
    await from.unlock(fromLock.id).catch(() => undefined);
  }
}
