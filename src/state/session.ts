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
  type SessionStore,
  type SnapshotSource,
  type StatePlace,
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
  /**
   * Asks for the records issued so far to be made durable now, without
   * waiting for the journal's commit interval (the caller has nothing else
   * to send meanwhile). Each record still resolves only once durable.
   */
  flush(): void;
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
export async function openState(store: SessionStore, options: OpenStateOptions): Promise<StateSession> {
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
    return new Session(store, doc, stored, lock, slot, { replayed: accepted, skipped, kept: replayed.kept });
  } catch (err) {
    slot.drop();
    await store.unlock(lock.id).catch(() => undefined);
    throw err;
  }
}

/** The open session openState returns: see StateSession. */
class Session implements StateSession {
  private readonly lineage: string;
  private index: Map<string, RecordedResource>;
  private serial: number;
  private tenant: StateTenant | undefined;
  private cached: StateDocument | null;
  private dirty = false;
  private released = false;
  private broken: Error | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private barrier: Promise<unknown> | null = null;

  constructor(
    private readonly store: SessionStore,
    initial: StateDocument,
    private stored: Stored,
    readonly lock: LockInfo,
    private readonly slot: LockSlot,
    readonly rescued: RescueOutcome,
  ) {
    this.lineage = initial.lineage;
    this.index = indexByAddress(initial);
    this.serial = initial.serial;
    this.tenant = initial.tenant;
    this.cached = initial;
  }

  get doc(): StateDocument {
    this.cached ??= {
      format_version: STATE_FORMAT_VERSION,
      lineage: this.lineage,
      serial: this.serial,
      ...(this.tenant ? { tenant: this.tenant } : {}),
      resources: sortResources(this.index.values()),
    };
    return this.cached;
  }

  failure(): Error | null {
    return this.broken ?? this.store.failure?.() ?? null;
  }

  recorded(address: string): RecordedResource | null {
    return this.index.get(address) ?? null;
  }

  flush(): void {
    this.store.flushJournal?.();
  }

  async record(entry: RecordEntry): Promise<void> {
    this.usable();
    const journalEntry = toJournalEntry(this.lineage, entry);
    checkEntryToRecord(journalEntry);
    while (this.barrier) await this.barrier.catch(() => undefined);
    this.usable();
    const run = this.store.appendJournal([journalEntry]).then(
      () => {
        applyEntry(this.index, journalEntry);
        this.cached = null;
        this.dirty = true;
      },
      (err: unknown) => {
        this.broken ??= err instanceof Error ? err : new Error(String(err));
        throw err;
      },
    );
    this.inFlight.add(run);
    try {
      await run;
    } finally {
      this.inFlight.delete(run);
    }
  }

  commit(): Promise<StateDocument> {
    return this.exclusive(async () => {
      this.usable();
      if (this.dirty) await this.persist({ ...this.doc, serial: this.serial + 1 });
      return this.doc;
    });
  }

  replace(doc: StateDocument): Promise<void> {
    return this.exclusive(async () => {
      this.usable();
      if (doc.lineage !== this.lineage) {
        throw new StateError(
          'STATE_INVALID',
          `replace keeps the lineage of ${this.store.description} (${this.lineage}); got ${doc.lineage}`,
        );
      }
      const resources = sortResources(structuredClone(doc.resources));
      const bound = doc.tenant ? { tenant: { ...doc.tenant } } : {};
      await this.persist({
        format_version: STATE_FORMAT_VERSION,
        lineage: this.lineage,
        serial: this.serial + 1,
        ...bound,
        resources,
      });
    });
  }

  bindTenant(next: StateTenant): Promise<void> {
    return this.exclusive(async () => {
      this.usable();
      if (this.tenant?.api_base === next.api_base && this.tenant.host === next.host) return;
      // Written at once (with what was recorded so far), before the first request to that tenant.
      await this.persist({ ...this.doc, tenant: { ...next }, serial: this.serial + 1 });
    });
  }

  release(): Promise<void> {
    return this.exclusive(async () => {
      if (this.released) return;
      this.released = true;
      this.slot.drop();
      await this.store.unlock(this.lock.id);
    });
  }

  private usable(): void {
    if (this.released)
      throw new StateError('STATE_IO', `the state session on ${this.store.description} was released`);
  }

  /** Stores `next` (compare-and-set on what this session last saw stored), then clears the journal. */
  private async persist(next: StateDocument): Promise<void> {
    await this.store.write(next, this.stored);
    this.stored = { lineage: next.lineage, serial: next.serial };
    this.serial = next.serial;
    this.tenant = next.tenant;
    this.index = indexByAddress(next);
    this.cached = next;
    this.dirty = false;
    await this.store.clearJournal();
  }

  /**
   * Runs commit, replace and release one at a time, after records in flight
   * settle; records issued meanwhile wait, so clearing the journal can never
   * drop an entry that the written document lacks.
   */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.barrier) await this.barrier.catch(() => undefined);
    const run = (async () => {
      this.flush();
      await Promise.allSettled([...this.inFlight]);
      return fn();
    })();
    this.barrier = run;
    try {
      return await run;
    } finally {
      this.barrier = null;
    }
  }
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
  store: SnapshotSource,
  options: SnapshotOptions = {},
): Promise<StateDocument | null> {
  return (await readStateSnapshotWithRescue(store, options)).doc;
}

/**
 * readStateSnapshot, plus which rescue files were included (in memory only:
 * the next openState replays and removes them, with the same serial).
 */
export async function readStateSnapshotWithRescue(
  store: SnapshotSource,
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
  store: StatePlace,
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
