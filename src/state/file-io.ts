import { uniqueHex } from './random.js';
import { readlinkSync, realpathSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ioError } from './errors.js';

/** What a sync call makes durable; passed to an injected SyncFn (tests count or fail syncs). */
export type SyncTarget = 'state' | 'backup' | 'journal' | 'lock' | 'directory';

export type SyncFn = (handle: FileHandle, target: SyncTarget) => Promise<void>;

export const defaultSync: SyncFn = (handle) => handle.sync();

/**
 * Writes bytes at the end of a file opened for appending and returns how many
 * were written (fewer than asked is a short write: the disk filled up).
 * Injected by tests to simulate a full disk.
 */
export type AppendFn = (handle: FileHandle, bytes: Buffer) => Promise<number>;

export const defaultAppend: AppendFn = async (handle, bytes) =>
  (await handle.write(bytes, 0, bytes.length)).bytesWritten;

/** The file's bytes, or null when it does not exist. */
export async function readBytes(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(`read ${path}`, err);
  }
}

/** Creates the directory (mode 0700) and its parents when missing; an existing one is left as it is. */
export async function ensureDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw ioError(`create directory ${dir}`, err);
  }
}

/**
 * Makes a directory's entries (created, renamed or removed files) durable.
 * Platforms that cannot open a directory for sync (Windows) skip it.
 */
export async function syncDirectory(dir: string, sync: SyncFn): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, 'r');
  } catch (err) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes(String((err as NodeJS.ErrnoException).code))) return;
    throw ioError(`open directory ${dir} to sync it`, err);
  }
  try {
    await sync(handle, 'directory');
  } catch (err) {
    if (!['EINVAL', 'EBADF', 'EPERM'].includes(String((err as NodeJS.ErrnoException).code))) {
      throw ioError(`sync directory ${dir}`, err);
    }
  } finally {
    await handle.close();
  }
}

/** A temp name in the same directory as `path`, so that rename stays on one filesystem. */
export function tempPathFor(path: string): string {
  return `${path}.tmp-${process.pid}-${uniqueHex(8)}`;
}

/**
 * Writes a new file with mode 0600 under a temp name, syncs it, and renames it
 * over `path`. The caller syncs the directory afterwards. On failure the temp
 * file is removed and `path` is unchanged.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Buffer,
  sync: SyncFn,
  target: SyncTarget,
): Promise<void> {
  const temp = tempPathFor(path);
  let handle: FileHandle | null = null;
  try {
    handle = await open(temp, 'wx', 0o600);
    await handle.writeFile(data);
    await sync(handle, target);
    await handle.close();
    handle = null;
    await rename(temp, path);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw ioError(`write ${path}`, err);
  }
}

function processGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes temp files a killed write left beside `base` in `dir`
 * (`base.tmp-<pid>-<hex>`, `base.backup.tmp-…`, `base.journal.tmp-…`), once
 * the caller holds the lock, so that no live writer can own them; a lock's
 * temp file (`base.lock.tmp-…`) only when its pid is gone, since rivals
 * create those without the lock. Returns the names removed; failures are ignored.
 */
export async function removeStaleTemps(dir: string, base: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  const pattern = new RegExp(
    `^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\.backup|\\.journal|\\.lock)?\\.tmp-(\\d+)-[0-9a-f]+$`,
  );
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid) continue;
    if (m[1] === '.lock' && !processGone(pid)) continue;
    try {
      await unlink(`${dir}/${name}`);
      removed.push(name);
    } catch {
      // already gone, or not ours to remove: leave it
    }
  }
  return removed;
}

/** How many symbolic links realFilePath follows before it calls the path a loop (as the kernel's ELOOP). */
const MAX_LINKS = 40;

/**
 * The file `path` really names: every symbolic link in it resolved, also
 * when the file itself does not exist yet (a link to a file to be created,
 * or a new file in a linked directory). The lock, the journal and every
 * write are made on this path, so that one state reached through two names
 * is one state, and a link is written through, never replaced by a file.
 */
export function realFilePath(path: string): string {
  let current = resolve(path);
  for (let links = 0; links <= MAX_LINKS; links++) {
    try {
      return realpathSync(current);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw ioError(`resolve the state path ${path}`, err);
    }
    // The file is missing: resolve its directory, then follow the name if it is a dangling link.
    const dir = realDirectory(dirname(current));
    const target = linkTarget(join(dir, basename(current)));
    if (target === null) return join(dir, basename(current));
    current = resolve(dir, target);
  }
  throw ioError(
    `resolve the state path ${path}`,
    Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' }),
  );
}

/** The real path of a directory that may not exist yet: its nearest existing ancestor resolved. */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw ioError(`resolve the directory ${dir}`, err);
    const parent = dirname(dir);
    return parent === dir ? dir : join(realDirectory(parent), basename(dir));
  }
}

/** What the symbolic link at `path` points to, or null when `path` is not a link. */
function linkTarget(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}
