import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { profile, putEntry, stateDoc } from '../../test/helpers/state-contract.js';
import { LockError, StateError } from './errors.js';
import type { SyncTarget } from './file-io.js';
import { createFileStateStore, type FileStateStoreOptions } from './file-store.js';
import type { StateStore } from './types.js';
import { messageOf } from '../cli/run-words.js';

let root: string;
let statePath: string;
const stores: StateStore[] = [];

function open(options?: FileStateStoreOptions): StateStore {
  const store = createFileStateStore(statePath, options);
  stores.push(store);
  return store;
}

function counter(): { counts: Record<SyncTarget, number>; sync: NonNullable<FileStateStoreOptions['sync']> } {
  const counts: Record<SyncTarget, number> = { state: 0, backup: 0, journal: 0, lock: 0, directory: 0 };
  return {
    counts,
    sync: async (handle: FileHandle, target: SyncTarget) => {
      counts[target]++;
      await handle.sync();
    },
  };
}

/** A commit clock for the journal whose time stands still and whose timers fire only when told. */
function manualCommitClock(intervalMs: number) {
  const timers: { ms: number; fire: () => void; cancelled: boolean }[] = [];
  const journalCommit: NonNullable<FileStateStoreOptions['journalCommit']> = {
    intervalMs,
    now: () => 0,
    schedule: (ms, fn) => {
      const timer = { ms, fire: fn, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    },
  };
  return { timers, journalCommit };
}

/** A sync that holds the first journal fsync until released, counting the journal's fsyncs. */
function holdFirstJournalSync() {
  let calls = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => (started = resolve));
  const sync = async (handle: FileHandle, target: SyncTarget): Promise<void> => {
    if (target !== 'journal') return handle.sync();
    calls++;
    if (calls === 1) {
      started();
      await held;
    }
    await handle.sync();
  };
  return { sync, started: startedP, release, calls: () => calls };
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;
const line = (entry: unknown) => JSON.stringify(entry) + '\n';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-file-store-'));
  statePath = join(root, 'config', '.tenantform', 'state.json');
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await rm(root, { recursive: true, force: true });
});

describe('file state store: files and modes', () => {
  it.each(['state.json', 'state.json.backup', 'state.json.journal', 'state.json.lock'])(
    'creates %s with mode 0600',
    async (name) => {
      const store = open();
      await store.write(stateDoc(1), null);
      await store.write(stateDoc(2), { lineage: stateDoc(1).lineage, serial: 1 });
      await store.appendJournal([putEntry(profile(1))]);
      await store.lock({ pid: 1, host: 'h', command: 'apply', since: 'now' });
      expect(await mode(join(dirname(statePath), name))).toBe(0o600);
    },
  );

  it('creates a missing state directory with mode 0700', async () => {
    await open().write(stateDoc(1), null);
    expect(await mode(dirname(statePath))).toBe(0o700);
  });

  it('keeps the previous version in state.json.backup and leaves no temp files', async () => {
    const store = open();
    await store.write(stateDoc(1, [profile(1)]), null);
    const first = await readFile(statePath, 'utf8');
    await store.write(stateDoc(2, [profile(2)]), { lineage: stateDoc(1).lineage, serial: 1 });
    expect(await readFile(`${statePath}.backup`, 'utf8')).toBe(first);
    expect((await readdir(dirname(statePath))).sort()).toEqual(['state.json', 'state.json.backup']);
  });

  it('removes the journal file on clear', async () => {
    const store = open();
    await store.appendJournal([putEntry(profile(1))]);
    await store.clearJournal();
    expect(await readdir(dirname(statePath))).toEqual([]);
  });
});

describe('file state store: rate-limit facts', () => {
  it('keeps them in state.json.rate-limits, mode 0600, in a new 0700 directory, and nothing else', async () => {
    const store = open();
    await store.writeRateLimits('{"tenantform_rate_limits":1}\n');
    expect(await mode(`${statePath}.rate-limits`)).toBe(0o600);
    expect(await mode(dirname(statePath))).toBe(0o700);
    expect(await readdir(dirname(statePath))).toEqual(['state.json.rate-limits']);
    expect(await open().readRateLimits()).toBe('{"tenantform_rate_limits":1}\n');
  });
});

describe('file state store: plan key', () => {
  const keyPath = () => `${statePath}.key`;

  it('makes state.json.key on first need, mode 0600, in a new 0700 directory, and nothing else', async () => {
    const key = await open().planKey({ create: true });
    expect(await mode(keyPath())).toBe(0o600);
    expect(await mode(dirname(statePath))).toBe(0o700);
    expect((await readFile(keyPath(), 'utf8')).trim()).toBe(key!.toString('hex'));
    expect(await readdir(dirname(statePath))).toEqual(['state.json.key']);
  });

  it('reads none without making one, creating no directory', async () => {
    expect(await open().planKey({ create: false })).toBeNull();
    await expect(stat(dirname(statePath))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a key other users can read, saying how to fix it, for both reading and making', async () => {
    await open().planKey({ create: true });
    await chmod(keyPath(), 0o644);
    for (const create of [false, true]) {
      const err = await rejection(open().planKey({ create }));
      expect(err.code).toBe('STATE_KEY');
      expect(err.message).toContain(`the plan key ${keyPath()} can be read by other users (mode 0644)`);
      expect(err.message).toContain(`chmod 600 ${keyPath()}`);
    }
  });

  it('refuses a damaged key rather than making a new one over it', async () => {
    await mkdir(dirname(statePath), { recursive: true });
    await writeFile(keyPath(), 'not a key\n', { mode: 0o600 });
    const err = await rejection(open().planKey({ create: true }));
    expect(err.code).toBe('STATE_KEY');
    expect(err.message).toContain('is damaged');
    expect(await readFile(keyPath(), 'utf8')).toBe('not a key\n');
  });

  // Root reads any file, whatever its mode.
  it.skipIf(process.getuid?.() === 0)('says what it could not do when the key cannot be read', async () => {
    await open().planKey({ create: true });
    await chmod(keyPath(), 0o000);
    const err = await rejection(open().planKey({ create: false }));
    expect(err.code).toBe('STATE_IO');
    expect(err.message).toContain(`could not read the plan key ${keyPath()}: permission denied (EACCES)`);
  });
});

describe('file state store: a state file it cannot read', () => {
  const valid = stateDoc(3, [profile(1)]);
  it.each([
    ['text that is not JSON', '{"format_version": 1,', 'STATE_CORRUPT', 'not valid JSON'],
    ['an empty file', '', 'STATE_CORRUPT', 'not valid JSON'],
    [
      'a schema violation',
      JSON.stringify({ ...valid, serial: -1 }),
      'STATE_CORRUPT',
      'serial must be at least 0',
    ],
    [
      'a duplicated address',
      JSON.stringify({ ...valid, resources: [profile(1), profile(1)] }),
      'STATE_CORRUPT',
      'appears twice',
    ],
    [
      'an unknown format_version',
      JSON.stringify({ ...valid, format_version: 3 }),
      'STATE_UNKNOWN_VERSION',
      'format_version 3',
    ],
  ])('refuses %s on read and write and leaves its bytes untouched', async (_label, text, code, detail) => {
    await mkdir(dirname(statePath), { recursive: true });
    await writeFile(statePath, text);
    const store = open();
    const err = await rejection(store.read());
    expect(err).toBeInstanceOf(StateError);
    expect(err.code).toBe(code);
    expect(err.message).toContain(statePath);
    expect(err.message).toContain(detail);
    expect(err.message).toContain('left untouched');
    expect((await rejection(store.write(stateDoc(4), null))).code).toBe(code);
    expect((await rejection(store.write(stateDoc(4)))).code).toBe(code);
    expect(await readFile(statePath, 'utf8')).toBe(text);
    expect(await readdir(dirname(statePath))).toEqual(['state.json']);
  });

  it('names the backup file as a way to recover, when there is one', async () => {
    await mkdir(dirname(statePath), { recursive: true });
    await writeFile(statePath, 'garbage');
    expect((await rejection(open().read())).message).toContain('there is no backup beside it');
    await writeFile(`${statePath}.backup`, '{}');
    expect((await rejection(open().read())).message).toContain(`${statePath}.backup`);
  });
});

describe('file state store: journal file', () => {
  const journalPath = () => `${statePath}.journal`;
  const seed = async (text: string) => {
    await mkdir(dirname(statePath), { recursive: true });
    await writeFile(journalPath(), text);
  };

  it.each([
    ['a line cut short', '{"v":1,"lineage":"contract-lin'],
    ['a complete line with no newline', JSON.stringify(putEntry(profile(9)))],
    ['zero bytes from a crash', '\0\0\0\0\0\0'],
  ])('ignores a torn final line (%s), and cuts it off before the next append', async (_label, tail) => {
    await seed(line(putEntry(profile(1))) + line(putEntry(profile(2))) + tail);
    const store = open();
    expect(await store.readJournal()).toEqual([putEntry(profile(1)), putEntry(profile(2))]);
    await store.appendJournal([putEntry(profile(3))]);
    expect(await store.readJournal()).toEqual([
      putEntry(profile(1)),
      putEntry(profile(2)),
      putEntry(profile(3)),
    ]);
    expect(await readFile(journalPath(), 'utf8')).toBe(
      [1, 2, 3].map((n) => line(putEntry(profile(n)))).join(''),
    );
  });

  it('refuses a corrupt line followed by others (STATE_CORRUPT naming the line), also for appends', async () => {
    const text = line(putEntry(profile(1))) + '{"v":1,"lin\n' + line(putEntry(profile(2)));
    await seed(text);
    const store = open();
    const err = await rejection(store.readJournal());
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toContain(`${journalPath()} line 2`);
    expect((await rejection(store.appendJournal([putEntry(profile(3))]))).code).toBe('STATE_CORRUPT');
    expect(await readFile(journalPath(), 'utf8')).toBe(text);
  });

  it('refuses a journal entry of an unknown version', async () => {
    await seed(line({ ...putEntry(profile(1)), v: 2 }) + line(putEntry(profile(2))));
    expect((await rejection(open().readJournal())).code).toBe('STATE_UNKNOWN_VERSION');
  });
});

describe('file state store: group commit', () => {
  it('coalesces 100 concurrent appends into far fewer fsyncs, keeping call order', async () => {
    const { counts, sync } = counter();
    const store = open({ sync });
    const entries = Array.from({ length: 100 }, (_, i) => putEntry(profile(i)));
    await Promise.all(entries.map((e) => store.appendJournal([e])));
    expect(counts.journal).toBeGreaterThanOrEqual(1);
    expect(counts.journal).toBeLessThanOrEqual(2);
    expect(await store.readJournal()).toEqual(entries);
  });

  it('sends appends issued during an in-flight fsync together in the next single fsync', async () => {
    const held = holdFirstJournalSync();
    const store = open({ sync: held.sync });
    let firstDone = false;
    const first = store.appendJournal([putEntry(profile(0))]).then(() => (firstDone = true));
    await held.started;
    const later = Array.from({ length: 50 }, (_, i) => store.appendJournal([putEntry(profile(i + 1))]));
    expect(firstDone).toBe(false); // not acknowledged before its fsync returns
    held.release();
    await Promise.all([first, ...later]);
    expect(held.calls()).toBe(2);
    expect(await store.readJournal()).toHaveLength(51);
  });

  it('spaces the fsyncs of appends that keep arriving by the commit interval: they wait for it, then share one', async () => {
    const { timers, journalCommit } = manualCommitClock(10);
    const held = holdFirstJournalSync();
    const store = open({ sync: held.sync, journalCommit });
    const first = store.appendJournal([putEntry(profile(0))]);
    await held.started;
    let laterDone = 0;
    const later = Array.from({ length: 50 }, (_, i) =>
      store.appendJournal([putEntry(profile(i + 1))]).then(() => laterDone++),
    );
    held.release();
    await first;
    // They arrived while the first fsync ran: the next starts 10 ms after the first started, not at once.
    expect(timers.map((t) => t.ms)).toEqual([10]);
    expect(held.calls()).toBe(1);
    expect(laterDone).toBe(0);
    timers[0]!.fire();
    await Promise.all(later);
    expect(held.calls()).toBe(2);
    expect(await store.readJournal()).toHaveLength(51);
  });

  it('syncs an append to an idle journal at once: appends one after another never wait for the interval', async () => {
    const { timers, journalCommit } = manualCommitClock(10);
    const { counts, sync } = counter();
    const store = open({ sync, journalCommit });
    for (let i = 0; i < 3; i++) await store.appendJournal([putEntry(profile(i))]);
    expect(timers).toEqual([]);
    expect(counts.journal).toBe(3);
  });

  it('ends the wait for the commit interval on flush, and on a clear queued behind the appends', async () => {
    for (const end of ['flush', 'clear'] as const) {
      const { timers, journalCommit } = manualCommitClock(10);
      const held = holdFirstJournalSync();
      const store = open({ sync: held.sync, journalCommit });
      await store.clearJournal();
      const first = store.appendJournal([putEntry(profile(0))]);
      await held.started;
      const later = [1, 2, 3].map((i) => store.appendJournal([putEntry(profile(i))]));
      held.release();
      await first;
      expect(timers).toHaveLength(1);
      if (end === 'flush') store.flushJournal!();
      const cleared = end === 'clear' ? store.clearJournal() : Promise.resolve();
      await Promise.all([...later, cleared]);
      expect(timers[0]!.cancelled).toBe(true);
      expect(held.calls()).toBe(2);
    }
  });

  it('skips the journal fsync when fsyncJournal is false (benchmark switch)', async () => {
    const { counts, sync } = counter();
    const store = open({ sync, fsyncJournal: false });
    await store.appendJournal([putEntry(profile(1))]);
    await store.appendJournal([putEntry(profile(2))]);
    expect(counts.journal).toBe(0);
    expect(await store.readJournal()).toHaveLength(2);
  });

  it('rejects a batch whose fsync fails with STATE_IO, removes its bytes, and keeps appending afterwards', async () => {
    let fail = false;
    const store = open({
      sync: async (handle, target) => {
        if (target === 'journal' && fail) {
          fail = false;
          throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        }
        await handle.sync();
      },
    });
    await store.appendJournal([putEntry(profile(1))]);
    fail = true;
    const err = await rejection(store.appendJournal([putEntry(profile(2))]));
    expect(err.code).toBe('STATE_IO');
    expect(err.message).toContain('journal');
    await store.appendJournal([putEntry(profile(3))]);
    expect(await store.readJournal()).toEqual([putEntry(profile(1)), putEntry(profile(3))]);
  });
});

describe('file state store: failed writes', () => {
  it('keeps the previous state and leaves no temp file when the new file cannot be synced', async () => {
    let fail = false;
    const store = open({
      sync: async (handle, target) => {
        if (target === 'state' && fail)
          throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        await handle.sync();
      },
    });
    await store.write(stateDoc(1, [profile(1)]), null);
    const before = await readFile(statePath, 'utf8');
    fail = true;
    const err = await rejection(store.write(stateDoc(2), { lineage: stateDoc(1).lineage, serial: 1 }));
    expect(err.code).toBe('STATE_IO');
    expect(err.message).toContain('no space left');
    expect(await readFile(statePath, 'utf8')).toBe(before);
    expect((await readdir(dirname(statePath))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });
});

describe('file state store: lock file', () => {
  it('reports a lock file it cannot parse as held by "unknown", and force-unlock removes it', async () => {
    await mkdir(dirname(statePath), { recursive: true });
    await writeFile(`${statePath}.lock`, 'not json');
    const store = open();
    const err = await rejection(store.lock({ pid: 1, host: 'h', command: 'apply', since: 'now' }));
    expect(err).toBeInstanceOf(LockError);
    expect((err as LockError).holder.command).toBe('unknown');
    expect(err.message).toContain('"unknown"');
    expect((await store.forceUnlock())?.id).toBe('unknown');
    await store.lock({ pid: 1, host: 'h', command: 'apply', since: 'now' });
  });

  it('names the state file in the lock message', async () => {
    const store = open();
    await store.lock({ pid: 1234, host: 'ci-7', command: 'apply', since: '2026-11-21T10:00:00Z' });
    const err = await rejection(
      createFileStateStore(statePath).lock({ pid: 2, host: 'h', command: 'plan', since: 'now' }),
    );
    expect(messageOf(err)).toBe(
      `state ${statePath} is locked by apply (pid 1234 on host ci-7) since 2026-11-21T10:00:00Z; ` +
        'wait (--lock-timeout 5m), or run tenantform force-unlock if that process is gone',
    );
  });

  it('refuses use after close', async () => {
    const store = createFileStateStore(statePath);
    await store.close();
    expect((await rejection(store.read())).code).toBe('STATE_IO');
  });
});
