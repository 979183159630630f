import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { stat } from 'node:fs/promises';
import { checkCompareAndSet } from './document.js';
import { StateError } from './errors.js';
import {
  defaultAppend,
  defaultSync,
  ensureDirectory,
  readBytes,
  realFilePath,
  removeStaleTemps,
  syncDirectory,
  writeFileAtomic,
  type AppendFn,
  type SyncFn,
} from './file-io.js';
import { defaultCommitPacing, FileJournal, type CommitPacing } from './file-journal.js';
import { FileLock } from './file-lock.js';
import { ensurePlanKey, readPlanKey } from './plan-key.js';
import { readNamesFile, readRateLimitsFile, writeNamesFile, writeRateLimitsFile } from './names-file.js';
import type { KnownNames } from '../resources/index.js';
import {
  checkDocumentToWrite,
  checkStateDocument,
  decodeStateBytes,
  parseStateText,
  recordStringSharer,
} from './validate.js';
import { readStateValue } from './file-read.js';
import type { JournalEntry, LockInfo, LockOptions, StateDocument, StateStore } from './types.js';

export interface FileStateStoreOptions {
  /**
   * Sync the journal after each append (default true). false is a benchmark
   * switch only: a crash can then lose acknowledged operations.
   */
  fsyncJournal?: boolean;
  /** Replaces FileHandle.sync(); for tests that count or fail syncs. */
  sync?: SyncFn;
  /** Replaces the journal's append write; for tests that simulate a full disk or a short write. */
  append?: AppendFn;
  /**
   * The journal's commit interval and its clock (file-journal.ts); for tests
   * that hold the wait, or 0 to sync each batch as soon as the previous one is done.
   */
  journalCommit?: Partial<CommitPacing>;
}

/**
 * Refuses (after `release`) a state file with more than one name. The lock is
 * keyed on the file's path, and a hard link is another path to the same file
 * (same device and inode) with a lock of its own: two applies through the two
 * names would run at once. And each write replaces the file by renaming a new
 * one onto its name, which leaves the other name holding the old state. Checked
 * with the lock held, so that of two runs through two names neither proceeds.
 */
async function refuseHardLinked(file: string, release: () => Promise<void>): Promise<void> {
  let links: number;
  try {
    links = (await stat(file)).nlink;
  } catch {
    return; // no file yet (or unreadable: reading it says so)
  }
  if (links <= 1) return;
  await release();
  throw new StateError(
    'STATE_HARD_LINKED',
    `the state file ${file} has ${links} names (hard links to the same file): its lock is taken through one ` +
      'name only, so runs through the other names would not wait for it, and every write replaces the file under ' +
      `this name, leaving the others with an old state. Nothing was done. Remove the other names (find them with ` +
      `find / -samefile ${file}) and use a symbolic link where a second name is needed.`,
  );
}

type Expected = { lineage: string; serial: number } | null | undefined;

/** The file backend: see createFileStateStore. */
class FileStore implements StateStore {
  readonly description: string;
  readonly planKeyWhere: string;
  private readonly dir: string;
  private readonly sync: SyncFn;
  private readonly journal: FileJournal;
  private readonly locker: FileLock;
  private dirReady: Promise<void> | null = null;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly file: string,
    options: FileStateStoreOptions,
  ) {
    this.description = file;
    this.planKeyWhere = `${file}.key`;
    this.dir = dirname(file);
    this.sync = options.sync ?? defaultSync;
    const ensureDir = (): Promise<void> => this.ensureDir();
    this.journal = new FileJournal(
      `${file}.journal`,
      this.dir,
      ensureDir,
      this.sync,
      options.fsyncJournal ?? true,
      {
        append: options.append ?? defaultAppend,
        pacing: { ...defaultCommitPacing, ...options.journalCommit },
      },
    );
    this.locker = new FileLock(`${file}.lock`, this.dir, ensureDir, this.sync, file);
  }

  private open(): void {
    if (this.closed) throw new StateError('STATE_IO', `state store ${this.file} was closed`);
  }

  private ensureDir(): Promise<void> {
    this.dirReady ??= ensureDirectory(this.dir).catch((err: unknown) => {
      this.dirReady = null;
      throw err;
    });
    return this.dirReady;
  }

  /** Said when the file cannot be read: the backup is offered only when there is one. */
  private restoreHint(): string {
    return existsSync(`${this.file}.backup`)
      ? ` Repair it by hand, or restore the previous version from ${this.file}.backup.`
      : ' Repair it by hand (there is no backup beside it).';
  }

  private parse(bytes: Buffer): StateDocument {
    const where = `state file ${this.file}`;
    return parseStateText(decodeStateBytes(bytes, where, this.restoreHint()), where, this.restoreHint());
  }

  async planKey({ create }: { create: boolean }): Promise<Buffer | null> {
    this.open();
    if (!create) return readPlanKey(this.planKeyWhere);
    await this.ensureDir();
    return ensurePlanKey(this.planKeyWhere, this.dir, this.sync);
  }

  async readNames(): Promise<KnownNames | null> {
    this.open();
    return readNamesFile(`${this.file}.names`);
  }

  async writeNames(known: KnownNames): Promise<void> {
    this.open();
    await writeNamesFile(`${this.file}.names`, this.dir, known, this.sync);
  }

  async readRateLimits(): Promise<string | null> {
    this.open();
    return readRateLimitsFile(`${this.file}.rate-limits`);
  }

  async writeRateLimits(text: string): Promise<void> {
    this.open();
    await this.ensureDir();
    await writeRateLimitsFile(`${this.file}.rate-limits`, text);
  }

  failure(): Error | null {
    return this.journal.failure();
  }

  async read(): Promise<StateDocument | null> {
    this.open();
    // Read a piece at a time; read whole only when that gives up (file-read.ts), to report why.
    const value = await readStateValue(this.file, recordStringSharer());
    if (value !== undefined)
      return checkStateDocument(value, `state file ${this.file}`, this.restoreHint(), true);
    const bytes = await readBytes(this.file);
    return bytes === null ? null : this.parse(bytes);
  }

  async write(doc: StateDocument, expected?: Expected): Promise<void> {
    this.open();
    const run = this.writes.then(() => this.writeDocument(doc, expected));
    this.writes = run.catch(() => undefined);
    return run;
  }

  private async writeDocument(doc: StateDocument, expected: Expected): Promise<void> {
    const next = checkDocumentToWrite(doc, this.file);
    await this.ensureDir();
    const previousBytes = await readBytes(this.file);
    let previous: StateDocument | null = null;
    if (previousBytes !== null) {
      try {
        previous = this.parse(previousBytes);
      } catch (err) {
        if (err instanceof StateError)
          throw new StateError(err.code, `refusing to write the state: ${err.message}`);
        throw err;
      }
    }
    checkCompareAndSet(previous, expected, next, this.file);
    if (previousBytes !== null)
      await writeFileAtomic(`${this.file}.backup`, previousBytes, this.sync, 'backup');
    await writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n', this.sync, 'state');
    await syncDirectory(this.dir, this.sync);
  }

  async appendJournal(entries: readonly JournalEntry[]): Promise<void> {
    this.open();
    return this.journal.append(entries);
  }

  flushJournal(): void {
    this.journal.flush();
  }

  async readJournal(): Promise<JournalEntry[]> {
    this.open();
    return this.journal.read();
  }

  async clearJournal(): Promise<void> {
    this.open();
    return this.journal.clear();
  }

  async repairJournal(): Promise<{ kept: number; dropped: number[]; backup: string | null }> {
    this.open();
    return this.journal.repair();
  }

  async lock(info: Omit<LockInfo, 'id'>, lockOptions?: LockOptions): Promise<LockInfo> {
    this.open();
    const taken = await this.locker.lock(info, lockOptions);
    await refuseHardLinked(this.file, () => this.locker.unlock(taken.id));
    // Holding the lock, no other writer is active: temp files of a killed write are leftovers.
    await removeStaleTemps(this.dir, basename(this.file));
    return taken;
  }

  async unlock(lockId: string): Promise<void> {
    this.open();
    return this.locker.unlock(lockId);
  }

  async forceUnlock(): Promise<LockInfo | null> {
    this.open();
    return this.locker.forceUnlock();
  }

  async lockHolder(): Promise<LockInfo | null> {
    this.open();
    return this.locker.holder();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes;
    await this.journal.close();
  }
}

/**
 * State in a file (the default backend). Beside `path`:
 * - `path`          the document, replaced atomically (temp file, fsync, rename, fsync of the directory);
 * - `path.backup`   the previous version, written before each replacement;
 * - `path.journal`  acknowledged operations not yet compacted, JSON lines, group-committed;
 * - `path.lock`     the lock record (LockInfo JSON), created exclusively;
 * - `path.key`      the plan key that seals saved plans (plan-key.ts), made by the first plan --out.
 * - `path.names`    the names kept from the last reads of the tenant (names-file.ts): display only.
 * - `path.rate-limits` the tenant's rate-limit facts from the last run (names-file.ts): a hint for pacing.
 * Every file is created with mode 0600 and a missing directory with 0700.
 * A corrupt or unknown-version document is never overwritten.
 *
 * `path` is resolved to the file it really names (symbolic links followed,
 * also for a file not created yet): the lock is keyed on that file, so one
 * state reached through two names has one lock, and a write renames onto
 * that file, never over a link.
 *
 * Compare-and-set is checked against the file just before the rename, inside
 * one process; across processes it relies on the lock being held.
 */
export function createFileStateStore(path: string, options: FileStateStoreOptions = {}): StateStore {
  // Every file of the state sits beside the real file, and every write goes to it: see realFilePath.
  return new FileStore(realFilePath(path), options);
}
