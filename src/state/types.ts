import type { KnownNames, RecordedResource } from '../resources/index.js';

/** 2: the state records the tenant it was applied to (`tenant`). */
export const STATE_FORMAT_VERSION = 2;
/** Format versions a stored document may have; older ones are read as the current one (1: no tenant yet). */
export const READABLE_STATE_VERSIONS: readonly number[] = [1, STATE_FORMAT_VERSION];
export const JOURNAL_FORMAT_VERSION = 1;

/** The tenant a state was applied to: where its ids live. Never a credential. */
export interface StateTenant {
  /** The API's host, with the port when it is not the default: "tenant.example.com", "127.0.0.1:4000". */
  host: string;
  /** The API base URL: "https://tenant.example.com/api/v2". */
  api_base: string;
}

/** The state document as stored: what tenantform last recorded on the tenant. */
export interface StateDocument {
  format_version: typeof STATE_FORMAT_VERSION;
  /** The tenant the state was last applied to; absent until an apply sends a request. */
  tenant?: StateTenant;
  /** Random id fixed when the state is first created; a plan made from another lineage is refused. */
  lineage: string;
  /** Incremented on every write; a saved plan records the serial it was made from. */
  serial: number;
  /** Sorted by address. */
  resources: RecordedResource[];
}

/**
 * One acknowledged operation, appended (and made durable) before the
 * operation counts as done. Entries are idempotent: replaying one twice gives
 * the same state, so a crash between compaction and journal truncation is harmless.
 */
export type JournalEntry =
  | { v: typeof JOURNAL_FORMAT_VERSION; lineage: string; op: 'put'; resource: RecordedResource }
  | { v: typeof JOURNAL_FORMAT_VERSION; lineage: string; op: 'remove'; address: string };

/**
 * Where a state lives, as a saved plan records it: enough to tell two states
 * apart, never a credential (a pg server is HOST:PORT/DATABASE only).
 */
export type StateLocation =
  { backend: 'file'; path: string } | { backend: 'pg'; server: string; schema: string; workspace: string };

/** The location in words, for messages. */
export function describeStateLocation(location: StateLocation): string {
  return location.backend === 'file'
    ? location.path
    : `pg workspace "${location.workspace}" on ${location.server} (schema ${location.schema})`;
}

/** Who holds a lock. Shown to a second process that finds the state locked. */
export interface LockInfo {
  /** Random id of this lock; unlock must present it. */
  id: string;
  pid: number;
  host: string;
  /** The command holding the lock, e.g. "apply". */
  command: string;
  /** ISO time the lock was taken. */
  since: string;
  /** The holder's start time (Linux: clock ticks since boot), so that a reused pid is not taken for it. */
  start?: string;
  /** The holder's pid namespace (Linux), so that a pid seen from another container is not taken for it. */
  pidNamespace?: string;
}

/** Why a lock could be taken over: see LockOptions.onTakeover. */
export type TakeoverReason = 'process-gone' | 'session-ended';

export interface LockOptions {
  /** How long to keep retrying while another holder has the lock; 0 = fail at once. */
  timeoutMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Called when the lock was taken over from a holder that cannot write any
   * more: `process-gone` (file: same host, pid gone or reused) or
   * `session-ended` (pg: its database session ended; the process itself may
   * still run, but every write it tries is refused).
   */
  onTakeover?: (stale: LockInfo, how: TakeoverReason) => void;
}

/**
 * The state store in small interfaces, as Terraform's `statemgr` has them:
 * each caller is typed against the part it uses (a snapshot reads, a session
 * reads, writes, journals and locks, `state migrate` copies between two), and
 * `StateStore` is the whole of it, which every backend (file, memory, pg)
 * implements. Every implementation must pass test/helpers/state-contract.ts.
 */

/** Where a state lives, in words. */
export interface StatePlace {
  /** Human description for messages, e.g. the file path or "pg workspace prod". Never contains secrets. */
  readonly description: string;
  /** The state file, for backends that keep the state in one (rescue files go beside it). */
  readonly file?: string;
}

/** Reads the stored document. */
export interface StateReader extends StatePlace {
  /** The stored document, or null when none exists yet. Throws StateError on a corrupt or unknown-version document. */
  read(): Promise<StateDocument | null>;
}

/** Replaces the stored document. */
export interface StateWriter extends StatePlace {
  /**
   * Writes the document atomically. When `expected` is given, the write must fail with
   * StateError code STATE_CONFLICT unless the stored document still has that lineage and serial
   * (null = nothing stored yet).
   */
  write(doc: StateDocument, expected?: { lineage: string; serial: number } | null): Promise<void>;
}

/** Reads the journal: acknowledged operations not yet compacted into the document. */
export interface JournalReader extends StatePlace {
  /** Every journal entry not yet compacted, in append order. Tolerates a torn last entry. */
  readJournal(): Promise<JournalEntry[]>;
}

/** The journal: appended before an operation counts as done, cleared once compacted. */
export interface StateJournal extends JournalReader {
  /** Appends entries durably (fsync or commit) before resolving. */
  appendJournal(entries: readonly JournalEntry[]): Promise<void>;
  /**
   * Asks for the appends issued so far to be made durable now rather than
   * grouped with later ones (the file journal's commit interval); their
   * promises still resolve only once durable. Backends that do not group omit it.
   */
  flushJournal?(): void;
  /** Drops the journal after its entries were compacted into a written document. */
  clearJournal(): Promise<void>;
  /**
   * Rewrites a damaged journal keeping every complete, valid entry, after
   * saving the damaged one as `backup`; `dropped` lists the line numbers left
   * out. Backends whose journal cannot be damaged this way omit it. Needs the lock.
   */
  repairJournal?(): Promise<{ kept: number; dropped: number[]; backup: string | null }>;
}

/** The lock: one writer at a time. */
export interface StateLocker extends StatePlace {
  /** Takes the lock or throws LockError carrying the holder's LockInfo. */
  lock(info: Omit<LockInfo, 'id'>, options?: LockOptions): Promise<LockInfo>;
  /** Releases a lock taken by this holder. */
  unlock(lockId: string): Promise<void>;
  /** Removes any lock regardless of holder; returns the holder that was removed, if any. */
  forceUnlock(): Promise<LockInfo | null>;
  /** The lock's current holder, or null when it is free (force-unlock checks it is gone first). */
  lockHolder?(): Promise<LockInfo | null>;
}

/** The plan key kept with the state. */
export interface PlanKeyKeeper {
  /**
   * The plan key of this state: the secret that seals its saved plans (32
   * bytes; see src/plan/plan-seal.ts). With `create`, made on first need and
   * kept with the state (file: `state.json.key`, mode 0600; pg: the
   * workspace's row); without it, null when there is none. Throws StateError
   * STATE_KEY for a key that cannot be trusted (readable by others, damaged).
   */
  planKey(options: { create: boolean }): Promise<Buffer | null>;
  /** Where the plan key is kept, for messages: a path, or the pg table and workspace. */
  readonly planKeyWhere: string;
}

/** The names kept beside the state: display only. */
export interface NameKeeper {
  /**
   * The names kept from the last reads of the tenant (src/resources/known-names.ts),
   * or null when none are kept. Display only, kept beside the document and
   * never in it (file: `state.json.names`; pg: the workspace's row of `names`):
   * read and written without the lock, they never change the serial.
   */
  readNames(): Promise<KnownNames | null>;
  /** Replaces the names kept with this state (made on first need, like the plan key). */
  writeNames(known: KnownNames): Promise<void>;
}

/** The tenant's rate-limit facts kept beside the state: a hint for the pacer's first round. */
export interface RateLimitKeeper {
  /**
   * The text of the rate-limit facts the last run that got answers kept
   * (src/run/rate-memory.ts reads and checks it: nothing in it is trusted
   * beyond what it proves), or null when none is kept. Beside the document
   * and never in it (file: `state.json.rate-limits`; pg: the workspace's row
   * of `rate_limits`): read and written without the lock, never changing the serial.
   */
  readRateLimits(): Promise<string | null>;
  /** Replaces the facts kept with this state (made on first need). */
  writeRateLimits(text: string): Promise<void>;
}

/** The document and its pending journal: what a snapshot reads (no lock, no write). */
export interface SnapshotSource extends StateReader, JournalReader {}

/** Document, journal and lock: what a session (`openState`) works on. */
export interface SessionStore extends StateReader, StateWriter, StateJournal, StateLocker {
  /**
   * Why this store can no longer record for the lock it holds (e.g. the pg
   * lock was lost, or the journal could not be restored), or null. Cheap: no I/O.
   */
  failure?(): Error | null;
}

/** A place where state lives, whole. Implementations: file (default), memory, pg. */
export interface StateStore extends SessionStore, PlanKeyKeeper, NameKeeper, RateLimitKeeper {
  /** Releases resources (connections); the store is unusable afterwards. */
  close(): Promise<void>;
}
