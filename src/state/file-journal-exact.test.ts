import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { profile, putEntry } from '../../test/helpers/state-contract-fixtures.js';
import type { AppendFn } from './file-io.js';
import { createFileStateStore } from './file-store.js';
import type { StateStore } from './types.js';

let root: string;
let statePath: string;
const stores: StateStore[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-journal-exact-'));
  statePath = join(root, 'state.json');
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

/** A disk that holds `room` journal bytes: a write beyond it is cut short (as on a full tmpfs). */
function fullDisk(room: number, mode: 'short' | 'enospc-after-partial') {
  let used = 0;
  const append: AppendFn = async (handle, bytes) => {
    const fit = Math.max(0, Math.min(bytes.length, room - used));
    if (fit > 0) await handle.write(bytes, 0, fit);
    used += fit;
    if (fit === bytes.length) return fit;
    if (mode === 'enospc-after-partial') {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return fit;
  };
  return { append, free: (n: number) => (room += n), shrink: () => (room = used) };
}

function store(append?: AppendFn): StateStore {
  const s = createFileStateStore(statePath, append ? { append } : {});
  stores.push(s);
  return s;
}

const journalPath = () => `${statePath}.journal`;

describe('file journal on a full disk', () => {
  it.each(['short', 'enospc-after-partial'] as const)(
    'a %s write fails the append, is cut off, and never pads the file',
    async (mode) => {
      const disk = fullDisk(10_000, mode);
      const s = store(disk.append);
      await s.appendJournal([putEntry(profile(1))]);
      const durable = (await stat(journalPath())).size;
      disk.shrink();
      disk.free(40); // room for part of the next entry only
      await expect(s.appendJournal([putEntry(profile(2))])).rejects.toMatchObject({ code: 'STATE_IO' });
      expect((await stat(journalPath())).size).toBe(durable);
      expect(await readFile(journalPath())).not.toContain(0);
      // Space comes back: appends continue right after the last whole entry.
      disk.free(100_000);
      await s.appendJournal([putEntry(profile(3))]);
      const text = await readFile(journalPath(), 'utf8');
      expect(text).not.toContain('\0');
      expect((await s.readJournal()).map((e) => e.op === 'put' && e.resource.id)).toEqual(['tep_1', 'tep_3']);
    },
  );

  it('cuts a NUL-padded or torn tail on open, before the next append', async () => {
    const good = JSON.stringify(putEntry(profile(1))) + '\n';
    await writeFile(journalPath(), good + '\0'.repeat(300));
    const s = store();
    expect(await s.readJournal()).toHaveLength(1);
    await s.appendJournal([putEntry(profile(2))]);
    expect(await readFile(journalPath(), 'utf8')).toBe(good + JSON.stringify(putEntry(profile(2))) + '\n');
  });
});

describe('state repair of a journal damaged in the middle', () => {
  it('names the repair command, then keeps every complete entry and saves the damaged file', async () => {
    const line = (n: number) => JSON.stringify(putEntry(profile(n))) + '\n';
    const damaged = line(1) + '\0'.repeat(64) + line(2) + '{"v":1,"lin\n' + line(3);
    await writeFile(journalPath(), damaged);
    const s = store();
    await expect(s.readJournal()).rejects.toThrow(/line 2 is not valid JSON.*tenantform state repair/s);
    const result = await s.repairJournal!();
    expect(result.kept).toBe(2);
    expect(result.dropped).toEqual([2, 3]);
    expect(await readFile(result.backup!, 'utf8')).toBe(damaged);
    expect((await stat(result.backup!)).mode & 0o777).toBe(0o600);
    // The NUL run and line(2) share one line (no newline between them): that entry is lost, line(3) kept.
    expect((await s.readJournal()).map((e) => e.op === 'put' && e.resource.id)).toEqual(['tep_1', 'tep_3']);
    expect((await readdir(root)).filter((n) => n.includes('damaged'))).toHaveLength(1);
  });
});

describe('temp files of a killed write', () => {
  it('are removed once the lock is taken; a live rival lock attempt is left', async () => {
    const { writeFile: write, readdir: list } = await import('node:fs/promises');
    const dead = 2 ** 22 + 12345; // above pid_max defaults: no such process
    const leftovers = [
      `state.json.tmp-${dead}-0a1b2c3d`,
      `state.json.backup.tmp-${dead}-0a1b2c3d`,
      `state.json.journal.tmp-${dead}-0a1b2c3d`,
      `state.json.lock.tmp-${dead}-0a1b2c3d`,
    ];
    for (const name of leftovers) await write(join(root, name), 'x');
    const rival = `state.json.lock.tmp-${process.ppid}-0a1b2c3d`;
    await write(join(root, rival), 'x');
    const s = store();
    const lock = await s.lock({ pid: process.pid, host: 'h', command: 'apply', since: 'now' });
    const left = (await list(root)).filter((n) => n.includes('.tmp-'));
    expect(left).toEqual([rival]);
    await s.unlock(lock.id);
  });
});
