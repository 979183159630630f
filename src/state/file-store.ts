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
import { FileJournal } from './file-journal.js';
import { FileLock } from './file-lock.js';
import { ensurePlanKey, readPlanKey } from './plan-key.js';
import { checkDocumentToWrite, checkStateDocument, decodeStateBytes, parseStateText } from './validate.js';
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
}

/**
 * State in a file (the default backend). Beside `path`:
 * - `path`          the document, replaced atomically (temp file, fsync, rename, fsync of the directory);
 * - `path.backup`   the previous version, written before each replacement;
 * - `path.journal`  acknowledged operations not yet compacted, JSON lines, group-committed;
 * - `path.lock`     the lock record (LockInfo JSON), created exclusively;
 * - `path.key`      the plan key that seals saved plans (plan-key.ts), made by the first plan --out.
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

export function createFileStateStore(path: string, options: FileStateStoreOptions = {}): StateStore {
  // Every file of the state sits beside the real file, and every write goes to it: see realFilePath.
  const file = realFilePath(path);
  const dir = dirname(file);
  const sync = options.sync ?? defaultSync;
  let dirReady: Promise<void> | null = null;
  const ensureDir = (): Promise<void> => {
    dirReady ??= ensureDirectory(dir).catch((err: unknown) => {
      dirReady = null;
      throw err;
    });
    return dirReady;
  };
  const journal = new FileJournal(`${file}.journal`, dir, ensureDir, sync, options.fsyncJournal ?? true, {
    append: options.append ?? defaultAppend,
  });
  const lock = new FileLock(`${file}.lock`, dir, ensureDir, sync, file);
  // Said when the file cannot be read: the backup is offered only when there is one.
  const restoreHint = (): string =>
    existsSync(`${file}.backup`)
      ? ` Repair it by hand, or restore the previous version from ${file}.backup.`
      : ' Repair it by hand (there is no backup beside it).';
  let writes: Promise<unknown> = Promise.resolve();
  let closed = false;

  const open = (): void => {
    if (closed) throw new StateError('STATE_IO', `state store ${file} was closed`);
  };

  async function readDocument(): Promise<StateDocument | null> {
    // Read a piece at a time; read whole only when that gives up (file-read.ts), to report why.
    const value = await readStateValue(file);
    if (value !== undefined) return checkStateDocument(value, `state file ${file}`, restoreHint());
    const bytes = await readBytes(file);
    return bytes === null
      ? null
      : parseStateText(
          decodeStateBytes(bytes, `state file ${file}`, restoreHint()),
          `state file ${file}`,
          restoreHint(),
        );
  }

  async function writeDocument(
    doc: StateDocument,
    expected: { lineage: string; serial: number } | null | undefined,
  ): Promise<void> {
    const next = checkDocumentToWrite(doc, file);
    await ensureDir();
    const previousBytes = await readBytes(file);
    let previous: StateDocument | null = null;
    if (previousBytes !== null) {
      try {
        previous = parseStateText(
          decodeStateBytes(previousBytes, `state file ${file}`, restoreHint()),
          `state file ${file}`,
          restoreHint(),
        );
      } catch (err) {
        if (err instanceof StateError)
          throw new StateError(err.code, `refusing to write the state: ${err.message}`);
        throw err;
      }
    }
    checkCompareAndSet(previous, expected, next, file);
    if (previousBytes !== null) await writeFileAtomic(`${file}.backup`, previousBytes, sync, 'backup');
    await writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n', sync, 'state');
    await syncDirectory(dir, sync);
  }

  const keyPath = `${file}.key`;
  return {
    description: file,
    file,
    planKeyWhere: keyPath,
    async planKey({ create }) {
      open();
      if (!create) return readPlanKey(keyPath);
      await ensureDir();
      return ensurePlanKey(keyPath, dir, sync);
    },
    failure() {
      return journal.failure();
    },
    async read() {
      open();
      return readDocument();
    },
    async write(doc, expected) {
      open();
      const run = writes.then(() => writeDocument(doc, expected));
      writes = run.catch(() => undefined);
      return run;
    },
    async appendJournal(entries: readonly JournalEntry[]) {
      open();
      return journal.append(entries);
    },
    async readJournal() {
      open();
      return journal.read();
    },
    async clearJournal() {
      open();
      return journal.clear();
    },
    async repairJournal() {
      open();
      return journal.repair();
    },
    async lock(info: Omit<LockInfo, 'id'>, lockOptions?: LockOptions) {
      open();
      const taken = await lock.lock(info, lockOptions);
      await refuseHardLinked(file, () => lock.unlock(taken.id));
      // Holding the lock, no other writer is active: temp files of a killed write are leftovers.
      await removeStaleTemps(dir, basename(file));
      return taken;
    },
    async unlock(lockId: string) {
      open();
      return lock.unlock(lockId);
    },
    async forceUnlock() {
      open();
      return lock.forceUnlock();
    },
    async lockHolder() {
      open();
      return lock.holder();
    },
    async close() {
      if (closed) return;
      closed = true;
      await writes;
      await journal.close();
    },
  };
}
