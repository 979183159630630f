import { hostname } from 'node:os';
import { reserveLockSlot, type LockSlot } from './held-locks.js';
import { processIdentity } from './lock-holder.js';
import type { RecordedResource } from '../resources/index.js';
import {
  applyEntry,
  applyJournal,
  applyRescue,
  copyJson,
  emptyState,
  indexByAddress,
  newLineage,
  sortResources,
} from './document.js';
import { StateError } from './errors.js';
import { removeRescueFile, selectRescueFiles, type RescueFile } from './rescue.js';
import { checkRecords } from './integrity.js';
import { checkEntryToRecord } from './validate.js';
import {
  JOURNAL_FORMAT_VERSION,
  STATE_FORMAT_VERSION,
  type JournalEntry,
  type LockInfo,
  type StateDocument,
  type StateStore,
  type StateTenant,
  type TakeoverReason,
} from './types.js';

/** One acknowledged operation, as the executor and commands report it. */
export type RecordEntry = { op: 'put'; resource: RecordedResource } | { op: 'remove'; address: string };

export interface OpenStateOptions {
  /** The command taking the lock, shown to a rival process: "apply", "import", "state rm". */
  command: string;
  /** How long to wait for a lock held by someone else; 0 (default) fails at once. */
  lockTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  host?: string;
  pid?: number;
  /** Clock for the lock's `since`. */
  now?: () => Date;
  /** Lineage generator for a state created by this session. */
  lineage?: () => string;
  /**
   * Rescue files found for this store (see rescue.ts): those of the state's
   * lineage are replayed after the journal in the same compaction, then removed.
   * A function is called once the lock is held, so that a file written while
   * this session waited for the lock is replayed too: typically that of the
   * apply whose lock it takes over, which writes what it had in flight there.
   */
  rescue?: readonly RescueFile[] | (() => Promise<readonly RescueFile[]>);
  /**
   * Called when the lock was taken over from a holder that can no longer
   * write (see LockOptions.onTakeover), after its journal (`replayed`
   * entries) and the rescue files found were replayed.
   */
  onTakeover?: (stale: LockInfo, replayed: number, how: TakeoverReason) => void;
  /**
   * Opens a state whose records fail the integrity checks (integrity.ts)
   * instead of refusing it: state rm, so that a bad record can be removed.
   */
  skipRecordChecks?: boolean;
}

/** What openState did with the rescue files it was given. */
export interface RescueOutcome {
  replayed: RescueFile[];
  skipped: { file: RescueFile; reason: string }[];
  /** Records whose id a replayed file would have replaced with none (see applyRescue): kept as they were. */
  kept: { file: RescueFile; record: RecordedResource }[];
}

/**
 * A locked, open state. `doc` always includes every recorded operation.
 * Callers must release() in a finally block; a session dropped without
 * commit() loses nothing, since the next openState replays its journal.
 */
export interface StateSession {
  /** The current document (do not mutate). serial is the last stored one, 0 when nothing was ever stored. */
  readonly doc: StateDocument;
  /** The lock this session holds. */
  readonly lock: LockInfo;
  /** Rescue files replayed into (or skipped by) this session when it opened. */
  readonly rescued: RescueOutcome;
  /** The first reason this session cannot record any more (a failed append, a lost lock), or null. */
  failure(): Error | null;
  /** The record at `address` in `doc`, or null (do not mutate). */
  recorded(address: string): RecordedResource | null;
  /** Appends the entry to the journal (durable when this resolves), then applies it to `doc`. O(1); never rewrites the state. */
  record(entry: RecordEntry): Promise<void>;
  /** Writes `doc` with serial + 1 (compare-and-set on the serial read) and clears the journal; no write when nothing changed. */
  commit(): Promise<StateDocument>;
  /** Stores a whole new document (resources, lineage and tenant from `doc`) with serial + 1, compare-and-set; clears the journal. */
  replace(doc: StateDocument): Promise<void>;
  /**
   * Records the tenant the state is applied to, written at once (serial + 1,
   * with everything recorded so far) unless it is already the one recorded.
   * Callers bind before the first request to a tenant, so that a run killed
   * afterwards leaves a state that names it.
   */
  bindTenant(tenant: StateTenant): Promise<void>;
  /** Releases the lock; idempotent. Does not commit. */
  release(): Promise<void>;
}

/** The journal entry of lineage `lineage` that records `entry` (a copy). */
export function toJournalEntry(lineage: string, entry: RecordEntry): JournalEntry {
  return entry.op === 'put'
    ? { v: JOURNAL_FORMAT_VERSION, lineage, op: 'put', resource: copyJson(entry.resource) }
    : { v: JOURNAL_FORMAT_VERSION, lineage, op: 'remove', address: entry.address };
}

/** What is stored now: the lineage and serial a compare-and-set write expects (null = nothing stored). */
type Stored = { lineage: string; serial: number } | null;

/**
 * Locks the state, reads it, and compacts any journal left by a crashed run
 * into it (written with serial + 1, then the journal is cleared; replay is
 * idempotent, so a crash in between is harmless). With no stored document,
 * the session starts an empty one: the journal's lineage if there is one,
 * else a new lineage.
 */
export async function openState(store: StateStore, options: OpenStateOptions): Promise<StateSession> {
  const now = options.now ?? (() => new Date());
  const pid = options.pid ?? process.pid;
  const takeover: { stale?: LockInfo; how?: TakeoverReason } = {};
  // A crash of this process releases the lock on its way out (see src/cli/crash.ts), even while it is being taken.
  const slot = reserveLockSlot();
  let lock: LockInfo;
  try {
    lock = await store.lock(
      {
        pid,
        host: options.host ?? hostname(),
        command: options.command,
        since: now().toISOString(),
        ...processIdentity(pid),
      },
      {
        timeoutMs: options.lockTimeoutMs ?? 0,
        sleep: options.sleep,
        onTakeover: (stale, how) => Object.assign(takeover, { stale, how }),
      },
    );
  } catch (err) {
    slot.drop();
    throw err;
  }
  const id = lock.id;
  slot.held(() => store.unlock(id));
  try {
    const read = await store.read();
    let stored: Stored = read ? { lineage: read.lineage, serial: read.serial } : null;
    const journal = await store.readJournal();
    const found = typeof options.rescue === 'function' ? await options.rescue() : (options.rescue ?? []);
    const { accepted, skipped } = selectRescueFiles(found, read?.lineage ?? journal[0]?.lineage ?? null);
    const base =
      read ?? emptyState(journal[0]?.lineage ?? accepted[0]?.lineage ?? (options.lineage ?? newLineage)());
    const replayed = replay(store, base, journal, accepted, options.skipRecordChecks !== true);
    let doc = replayed.doc;
    if (journal.length > 0 || accepted.length > 0) {
      doc = { ...doc, serial: doc.serial + 1 };
      await store.write(doc, stored);
      stored = { lineage: doc.lineage, serial: doc.serial };
      await store.clearJournal();
      for (const file of accepted) if (file.kind === 'file') await removeRescueFile(file.path);
    }
    if (takeover.stale) options.onTakeover?.(takeover.stale, journal.length, takeover.how ?? 'process-gone');
    return createSession(store, doc, stored, lock, slot, {
      replayed: accepted,
      skipped,
      kept: replayed.kept,
    });
  } catch (err) {
    slot.drop();
    await store.unlock(lock.id).catch(() => undefined);
    throw err;
  }
}

function createSession(
  store: StateStore,
  initial: StateDocument,
  initialStored: Stored,
  lock: LockInfo,
  slot: LockSlot,
  rescued: RescueOutcome,
): StateSession {
  const lineage = initial.lineage;
  let index = indexByAddress(initial);
  let serial = initial.serial;
  let tenant = initial.tenant;
  let stored = initialStored;
  let cached: StateDocument | null = initial;
  let dirty = false;
  let released = false;
  let broken: Error | null = null;
  const inFlight = new Set<Promise<void>>();
  let barrier: Promise<unknown> | null = null;

  const usable = (): void => {
    if (released) throw new StateError('STATE_IO', `the state session on ${store.description} was released`);
  };
  const current = (): StateDocument => {
    cached ??= {
      format_version: STATE_FORMAT_VERSION,
      lineage,
      serial,
      ...(tenant ? { tenant } : {}),
      resources: sortResources(index.values()),
    };
    return cached;
  };

  /** Stores `next` (compare-and-set on what this session last saw stored), then clears the journal. */
  async function persist(next: StateDocument): Promise<void> {
    await store.write(next, stored);
    stored = { lineage: next.lineage, serial: next.serial };
    serial = next.serial;
    tenant = next.tenant;
    index = indexByAddress(next);
    cached = next;
    dirty = false;
    await store.clearJournal();
  }

  /**
   * Runs commit, replace and release one at a time, after records in flight
   * settle; records issued meanwhile wait, so clearing the journal can never
   * drop an entry that the written document lacks.
   */
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (barrier) await barrier.catch(() => undefined);
    const run = (async () => {
      await Promise.allSettled([...inFlight]);
      return fn();
    })();
    barrier = run;
    try {
      return await run;
    } finally {
      barrier = null;
    }
  }

  return {
    get doc() {
      return current();
    },
    lock,
    rescued,
    failure() {
      return broken ?? store.failure?.() ?? null;
    },
    recorded(address) {
      return index.get(address) ?? null;
    },
    async record(entry) {
      usable();
      const journalEntry = toJournalEntry(lineage, entry);
      checkEntryToRecord(journalEntry);
      while (barrier) await barrier.catch(() => undefined);
      usable();
      const run = store.appendJournal([journalEntry]).then(
        () => {
          applyEntry(index, journalEntry);
          cached = null;
          dirty = true;
        },
        (err: unknown) => {
          broken ??= err instanceof Error ? err : new Error(String(err));
          throw err;
        },
      );
      inFlight.add(run);
      try {
        await run;
      } finally {
        inFlight.delete(run);
      }
    },
    commit() {
      return exclusive(async () => {
        usable();
        if (dirty) await persist({ ...current(), serial: serial + 1 });
        return current();
      });
    },
    replace(doc) {
      return exclusive(async () => {
        usable();
        if (doc.lineage !== lineage) {
          throw new StateError(
            'STATE_INVALID',
            `replace keeps the lineage of ${store.description} (${lineage}); got ${doc.lineage}`,
          );
        }
        const resources = sortResources(structuredClone(doc.resources));
        const bound = doc.tenant ? { tenant: { ...doc.tenant } } : {};
        await persist({
          format_version: STATE_FORMAT_VERSION,
          lineage,
          serial: serial + 1,
          ...bound,
          resources,
        });
      });
    },
    bindTenant(next) {
      return exclusive(async () => {
        usable();
        if (tenant?.api_base === next.api_base && tenant.host === next.host) return;
        // Written at once (with what was recorded so far), before the first request to that tenant.
        await persist({ ...current(), tenant: { ...next }, serial: serial + 1 });
      });
    },
    release() {
      return exclusive(async () => {
        if (released) return;
        released = true;
        slot.drop();
        await store.unlock(lock.id);
      });
    },
  };
}

export interface SnapshotOptions {
  /** Rescue files found for this store, applied in memory after the journal. */
  rescue?: readonly RescueFile[];
  /** Reads records that fail the integrity checks (integrity.ts) instead of refusing them: state list and show. */
  skipRecordChecks?: boolean;
}

/**
 * The state as a plan should see it, without the lock and without writing:
 * the stored document with any uncompacted journal applied in memory. When a
 * journal is pending, serial is the one the next openState will write
 * (stored + 1), so a plan saved now still matches after that compaction.
 * null when nothing was ever recorded.
 */
export async function readStateSnapshot(
  store: StateStore,
  options: SnapshotOptions = {},
): Promise<StateDocument | null> {
  return (await readStateSnapshotWithRescue(store, options)).doc;
}

/**
 * readStateSnapshot, plus which rescue files were included (in memory only:
 * the next openState replays and removes them, with the same serial).
 */
export async function readStateSnapshotWithRescue(
  store: StateStore,
  options: SnapshotOptions = {},
): Promise<{ doc: StateDocument | null; rescued: RescueOutcome }> {
  const doc = await store.read();
  const journal = await store.readJournal();
  const { accepted, skipped } = selectRescueFiles(
    options.rescue ?? [],
    doc?.lineage ?? journal[0]?.lineage ?? null,
  );
  const check = options.skipRecordChecks !== true;
  if (journal.length === 0 && accepted.length === 0) {
    if (doc && check) checkRecords(doc.resources, store.description);
    return { doc, rescued: { replayed: accepted, skipped, kept: [] } };
  }
  const base = doc ?? emptyState(journal[0]?.lineage ?? accepted[0]!.lineage);
  const next = replay(store, base, journal, accepted, check);
  return {
    doc: { ...next.doc, serial: (doc?.serial ?? 0) + 1 },
    rescued: { replayed: accepted, skipped, kept: next.kept },
  };
}

/**
 * The stored document with the journal and then each rescue file applied
 * (lineage and serial unchanged). With `check`, the records are checked
 * after each step that changed them, so that a refusal names where the bad
 * records came from.
 */
function replay(
  store: StateStore,
  stored: StateDocument,
  journal: readonly JournalEntry[],
  rescue: readonly RescueFile[],
  check: boolean,
): { doc: StateDocument; kept: RescueOutcome['kept'] } {
  if (check) checkRecords(stored.resources, store.description);
  let doc = stored;
  if (journal.length > 0) {
    doc = applyJournal(doc, journal, `the journal of ${store.description}`);
    if (check) checkRecords(doc.resources, `${store.description}, with its journal replayed,`);
  }
  const kept: RescueOutcome['kept'] = [];
  for (const file of rescue) {
    const replayed = applyRescue(doc, file.entries, `rescue file ${file.path}`);
    doc = replayed.doc;
    kept.push(...replayed.kept.map((record) => ({ file, record })));
    if (check) checkRecords(doc.resources, `${store.description}, with rescue file ${file.path} replayed,`);
  }
  return { doc, kept };
}
