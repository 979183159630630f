import { open, unlink, type FileHandle } from 'node:fs/promises';
import { ioError, StateError } from './errors.js';
import { joined, setting, wordingOrMessage, words } from '../resources/index.js';
import { readBytes, syncDirectory, writeFileAtomic, type AppendFn, type SyncFn } from './file-io.js';
import { checkJournalEntry, decodeJournalBytes, parseJournalText } from './validate.js';
import type { JournalEntry } from './types.js';

type Settle = { resolve: () => void; reject: (err: unknown) => void };
type Item = ({ kind: 'append'; data: string } | { kind: 'clear' } | { kind: 'close' }) & Settle;

/**
 * How far apart the journal's syncs are while appends keep arriving (see
 * FileJournal). Tests inject `now` and `schedule` to hold and release the wait.
 */
export interface CommitPacing {
  /** Least time from the start of one sync to the start of the next while appends keep arriving; 0: none. */
  intervalMs: number;
  now: () => number;
  /** Calls `fn` after `ms`; returns what cancels it. */
  schedule: (ms: number, fn: () => void) => () => void;
}

/**
 * The journal's commit interval. Against a fast tenant (thousands of answers
 * a second) the disk was synced back to back, one fsync every millisecond or
 * so, each carrying a handful of records: their count, more than their
 * latency (which the executor overlaps with the network), was what fsync cost
 * an apply (issue 39). With ten milliseconds, about 100 fsyncs carry the
 * 5,000 records of the bench's apply instead of 250 to 470, and the wait is
 * well within what the executor lets its workers run ahead of their records
 * (16 each); a worker that runs out of room asks for the sync at once (flush).
 */
export const JOURNAL_COMMIT_INTERVAL_MS = 10;

export const defaultCommitPacing: CommitPacing = {
  intervalMs: JOURNAL_COMMIT_INTERVAL_MS,
  now: () => performance.now(),
  schedule: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * The journal file: JSON lines, appended with group commit. Appends issued
 * while a write+fsync is in flight wait and go out together in the next single
 * write+fsync, so N concurrent appenders pay about one fsync per round, not N.
 * While appends keep arriving that way, the next write+fsync starts no sooner
 * than the commit interval after the previous one started, so that one fsync
 * carries what arrived in that time; an append to an idle journal goes out at
 * once, and flush() (or a clear or close queued behind the appends) ends the
 * wait. Every append resolves only after its bytes are synced (unless fsync is
 * off, when nothing waits).
 */
export class FileJournal {
  private readonly queue: Item[] = [];
  private draining = false;
  private handle: FileHandle | null = null;
  /** Bytes known to be durable in the file; a failed batch is truncated back to this. */
  private size = 0;
  private broken: StateError | null = null;
  /** When the last batch started to be written, by pacing.now(). */
  private lastStart = 0;
  /** Set by flush(): the next batch goes without waiting for the commit interval. */
  private urgent = false;
  /** Ends the wait for the commit interval, while there is one. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly path: string,
    private readonly dir: string,
    private readonly ensureDir: () => Promise<void>,
    private readonly sync: SyncFn,
    private readonly fsync: boolean,
    private readonly io: { append: AppendFn; pacing: CommitPacing },
  ) {}

  append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const data = entries.map((e) => JSON.stringify(e) + '\n').join('');
    return this.enqueue({ kind: 'append', data });
  }

  /**
   * Asks for the appends issued so far to be written and synced without
   * waiting for the commit interval: their appender has nothing else to do
   * meanwhile. Resolves nothing by itself; each append still resolves once synced.
   */
  flush(): void {
    this.urgent = true;
    this.wake?.();
  }

  /** Why appends can no longer succeed (a failed append could not be rolled back), or null. */
  failure(): StateError | null {
    return this.broken;
  }

  /** Removes the journal after every earlier append settled. */
  clear(): Promise<void> {
    return this.enqueue({ kind: 'clear' });
  }

  async read(): Promise<JournalEntry[]> {
    const bytes = await readBytes(this.path);
    return bytes === null ? [] : this.parse(bytes).entries;
  }

  /** Parses the journal; a damaged line before others names the way out (state repair). */
  private parse(bytes: Buffer): ReturnType<typeof parseJournalText> {
    try {
      return parseJournalText(decodeJournalBytes(bytes, `journal ${this.path}`), `journal ${this.path}`);
    } catch (err) {
      if (err instanceof StateError && err.code === 'STATE_CORRUPT') {
        throw new StateError(
          'STATE_CORRUPT',
          joined(
            wordingOrMessage(err),
            words` Run tenantform state repair (with the same path or ${setting('state')}) to keep every complete `,
            'entry; it saves the damaged journal as a backup first.',
          ),
        );
      }
      throw err;
    }
  }

  /**
   * Rewrites a damaged journal with every complete, valid entry (in order),
   * after saving the original bytes beside it. Lines that are not JSON or not
   * valid entries are dropped and reported by number; an entry of an unknown
   * version stops the repair (a newer tenantform wrote it). Call with the lock held.
   */
  async repair(now: Date = new Date()): Promise<{ kept: number; dropped: number[]; backup: string | null }> {
    await this.enqueue({ kind: 'close' }).catch(() => undefined);
    const bytes = await readBytes(this.path);
    if (bytes === null) return { kept: 0, dropped: [], backup: null };
    const lines = bytes.toString('utf8').split('\n');
    const kept: string[] = [];
    const dropped: number[] = [];
    lines.forEach((line, i) => {
      const complete = i < lines.length - 1;
      if (line.trim() === '' && complete) return;
      if (line === '' && !complete) return;
      try {
        if (!complete) throw new Error('torn');
        checkJournalEntry(JSON.parse(line), `journal ${this.path} line ${i + 1}`);
        kept.push(line + '\n');
      } catch (err) {
        if (err instanceof StateError && err.code === 'STATE_UNKNOWN_VERSION') throw err;
        dropped.push(i + 1);
      }
    });
    if (dropped.length === 0) return { kept: kept.length, dropped, backup: null };
    const backup = `${this.path}.damaged-${now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}`;
    await writeFileAtomic(backup, bytes, this.sync, 'backup');
    await writeFileAtomic(this.path, kept.join(''), this.sync, 'journal');
    await syncDirectory(this.dir, this.sync);
    this.size = 0;
    this.broken = null;
    return { kept: kept.length, dropped, backup };
  }

  /** Waits for queued work and closes the file. */
  async close(): Promise<void> {
    await this.enqueue({ kind: 'close' }).catch(() => undefined);
  }

  private enqueue(
    item: { kind: 'append'; data: string } | { kind: 'clear' } | { kind: 'close' },
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ...item, resolve, reject });
      // A clear or close waits for the appends before it: they go out now.
      if (item.kind !== 'append') this.flush();
      if (!this.draining) {
        this.draining = true;
        // Start on a microtask so that appends issued in the same tick share the first write.
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    // A batch after the first of this drain holds appends that arrived while the previous one was written.
    let streaming = false;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.kind !== 'append') {
        this.queue.shift();
        await settle(head, () => (head.kind === 'close' ? this.closeHandle() : this.removeFile()));
        continue;
      }
      if (streaming) await this.commitInterval();
      streaming = true;
      this.urgent = false;
      this.lastStart = this.io.pacing.now();
      let n = 0;
      while (n < this.queue.length && this.queue[n]!.kind === 'append') n++;
      const batch = this.queue.splice(0, n) as Extract<Item, { kind: 'append' }>[];
      try {
        await this.writeBatch(batch.map((b) => b.data).join(''));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.draining = false;
  }

  /** Waits until the commit interval since the last batch started has passed, or flush() is called. */
  private commitInterval(): Promise<void> {
    const { intervalMs, now, schedule } = this.io.pacing;
    const ms = this.lastStart + intervalMs - now();
    if (!this.fsync || this.urgent || ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let cancel = (): void => {};
      const done = (): void => {
        this.wake = null;
        cancel();
        resolve();
      };
      this.wake = done;
      cancel = schedule(ms, done);
    });
  }

  private async writeBatch(data: string): Promise<void> {
    if (this.broken) throw this.broken;
    const handle = await this.openForAppend();
    const bytes = Buffer.from(data);
    try {
      // A short write (the disk filled up) is a failure: only whole batches count.
      const written = await this.io.append(handle, bytes);
      if (written !== bytes.length) {
        throw new Error(`short write: ${written} of ${bytes.length} bytes (is the disk full?)`);
      }
      if (this.fsync) await this.sync(handle, 'journal');
      this.size += bytes.length;
    } catch (err) {
      await this.rollback(handle);
      throw ioError(`append to journal ${this.path}`, err);
    }
  }

  /**
   * Cuts a failed batch off so that no partial line sits before later
   * entries. Only ever shortens the file: if it is already shorter than the
   * durable size (something else cut it), the journal is marked broken.
   */
  private async rollback(handle: FileHandle): Promise<void> {
    try {
      const { size } = await handle.stat();
      if (size < this.size) {
        throw new Error(`it is ${size} bytes, shorter than the ${this.size} bytes known to be durable`);
      }
      if (size > this.size) await handle.truncate(this.size);
      await this.sync(handle, 'journal');
    } catch (err) {
      this.broken = ioError(
        `restore journal ${this.path} after a failed append; stop and run tenantform again`,
        err,
      );
    }
  }

  /** Opens lazily; cuts a torn tail left by a crash so that new lines follow complete ones. */
  private async openForAppend(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    await this.ensureDir();
    const bytes = await readBytes(this.path);
    const parsed = bytes === null ? null : this.parse(bytes);
    const handle = await open(this.path, 'a', 0o600).catch((err: unknown) => {
      throw ioError(`open journal ${this.path}`, err);
    });
    try {
      if (parsed && bytes && parsed.validBytes < bytes.length) {
        await handle.truncate(parsed.validBytes);
        await this.sync(handle, 'journal');
      }
      if (bytes === null) await syncDirectory(this.dir, this.sync);
      this.size = parsed?.validBytes ?? 0;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw ioError(`prepare journal ${this.path}`, err);
    }
    this.handle = handle;
    return handle;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await handle.close();
  }

  private async removeFile(): Promise<void> {
    await this.closeHandle();
    try {
      await unlink(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw ioError(`remove journal ${this.path}`, err);
    }
    await syncDirectory(this.dir, this.sync);
    this.size = 0;
    this.broken = null;
  }
}

async function settle(item: Settle, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    item.resolve();
  } catch (err) {
    item.reject(err);
  }
}
