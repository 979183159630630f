import { createHash, uniqueId } from './random.js';
import { link, open, unlink } from 'node:fs/promises';
import { ioError, unknownHolder } from './errors.js';
import { readBytes, syncDirectory, tempPathFor, type SyncFn } from './file-io.js';
import { holderStatus, toLockInfo } from './lock-holder.js';
import { waitForLock } from './lock-wait.js';
import type { LockInfo, LockOptions } from './types.js';

/** Reads a lock record; a record that cannot be parsed is held by "unknown". */
export function parseLockInfo(bytes: Buffer): LockInfo {
  try {
    return toLockInfo(JSON.parse(bytes.toString('utf8')));
  } catch {
    return unknownHolder();
  }
}

/**
 * The lock file beside the state. It is created exclusively with its whole
 * record already in it (written to a temp file, then hard-linked into place,
 * which fails when the lock exists), so a rival never reads a half-written
 * record. Filesystems without hard links fall back to an O_EXCL create.
 *
 * A lock whose holder is sure to be dead (same host, pid gone or reused, see
 * holderStatus) is taken over: under a marker file named after that lock's
 * id, created exclusively, so that of several processes taking over one
 * stale lock exactly one removes it, and never a lock taken meanwhile.
 */
export class FileLock {
  constructor(
    private readonly path: string,
    private readonly dir: string,
    private readonly ensureDir: () => Promise<void>,
    private readonly sync: SyncFn,
    private readonly where: string,
  ) {}

  async lock(info: Omit<LockInfo, 'id'>, options?: LockOptions): Promise<LockInfo> {
    const mine: LockInfo = { id: uniqueId(), ...info };
    await this.ensureDir();
    let retries = 0;
    await waitForLock(
      async () => {
        for (;;) {
          if (await this.tryCreate(mine)) return null;
          const holder = await this.holder();
          if (holder && holderStatus(holder) === 'gone') {
            // Ours to remove, or another process's: either way, look again.
            if (await this.takeOver(holder)) options?.onTakeover?.(holder, 'process-gone');
          } else if (holder) {
            return holder;
          }
          // Released (or taken over) between our try and our look: try again at once, a bounded number of times.
          if (++retries > 20) return holder ?? unknownHolder();
        }
      },
      this.where,
      options,
    );
    return mine;
  }

  private markerFor(stale: LockInfo): string {
    const tag = createHash('sha256').update(stale.id).digest('hex').slice(0, 16);
    return `${this.path}.takeover-${tag}`;
  }

  /**
   * Removes the lock file if it still holds `stale`; true when this call
   * removed it. Only the process that creates the marker may remove the
   * lock, and only after reading it again under the marker.
   */
  private async takeOver(stale: LockInfo): Promise<boolean> {
    const marker = this.markerFor(stale);
    let handle;
    try {
      handle = await open(marker, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false; // someone else is taking it over
      throw ioError(`take over the lock ${this.path}`, err);
    }
    try {
      await handle.close();
      const now = await this.holder();
      if (now?.id !== stale.id) return false;
      await this.remove();
      return true;
    } finally {
      await unlink(marker).catch(() => undefined);
    }
  }

  async unlock(lockId: string): Promise<void> {
    const holder = await this.holder();
    if (holder?.id === lockId) await this.remove();
  }

  async forceUnlock(): Promise<LockInfo | null> {
    const holder = await this.holder();
    if (holder) {
      await this.remove();
      // A takeover killed half-way leaves its marker: it would stop the next one.
      await unlink(this.markerFor(holder)).catch(() => undefined);
    }
    return holder;
  }

  /** The current holder, or null when the lock is free. */
  async holder(): Promise<LockInfo | null> {
    const bytes = await readBytes(this.path);
    return bytes === null ? null : parseLockInfo(bytes);
  }

  private async tryCreate(info: LockInfo): Promise<boolean> {
    const record = JSON.stringify(info) + '\n';
    const temp = tempPathFor(this.path);
    try {
      await this.writeNew(temp, record);
      await link(temp, this.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // Awaited here, not returned: the finally below awaits too, and a rejection nobody
      // listens to in the meantime is an unhandled rejection (a crash).
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV')
        return await this.tryCreateExclusive(record);
      throw ioError(`create lock ${this.path}`, err);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    await syncDirectory(this.dir, this.sync);
    return true;
  }

  /** Creates `path` (failing with EEXIST when present) holding `record`, synced. */
  private async writeNew(path: string, record: string): Promise<void> {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(record);
      await this.sync(handle, 'lock');
    } finally {
      await handle.close();
    }
  }

  private async tryCreateExclusive(record: string): Promise<boolean> {
    try {
      await this.writeNew(this.path, record);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw ioError(`create lock ${this.path}`, err);
    }
    await syncDirectory(this.dir, this.sync);
    return true;
  }

  private async remove(): Promise<void> {
    try {
      await unlink(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw ioError(`remove lock ${this.path}`, err);
    }
    await syncDirectory(this.dir, this.sync);
  }
}
