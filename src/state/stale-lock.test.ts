import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileStateStore } from './file-store.js';
import { processIdentity, processStartTime } from './lock-holder.js';
import { openState } from './session.js';
import type { LockInfo } from './types.js';
import { messageOf } from '../cli/run-words.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenantform-stale-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const SINCE = '2026-01-01T00:00:00.000Z';
const statePath = () => join(dir, 'state.json');
const me = () => ({ pid: process.pid, host: hostname(), command: 'apply', since: new Date().toISOString() });

/** A lock left as a killed holder would leave it. */
async function leaveLock(holder: Omit<LockInfo, 'id'>): Promise<LockInfo> {
  return createFileStateStore(statePath()).lock(holder);
}

async function lockError(fn: () => Promise<unknown>): Promise<Error> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e as Error,
  );
  if (!err) throw new Error('expected the lock to be refused');
  return err;
}

const hasProc = processStartTime(process.pid) !== undefined;

describe('a lock left by a process that is gone', () => {
  it('is taken over when its pid no longer runs on this host, and the takeover is reported', async () => {
    const stale = await leaveLock({ pid: deadPid(), host: hostname(), command: 'apply', since: SINCE });
    const taken: LockInfo[] = [];
    const store = createFileStateStore(statePath());
    const mine = await store.lock(me(), { onTakeover: (h) => taken.push(h) });
    expect(taken).toEqual([stale]);
    expect((await store.forceUnlock())?.id).toBe(mine.id);
    expect(readdirSync(dir)).toEqual([]); // no takeover marker left behind
  });

  it.skipIf(!hasProc)(
    'is taken over when its pid now runs another process (another start time)',
    async () => {
      const stale = await leaveLock({ ...me(), start: 'not-the-start-time' });
      const taken: LockInfo[] = [];
      await createFileStateStore(statePath()).lock(me(), { onTakeover: (h) => taken.push(h) });
      expect(taken).toEqual([stale]);
    },
  );

  it('is not taken over while its holder runs: refused, naming it, with the ways out', async () => {
    await leaveLock({ ...me(), ...processIdentity(process.pid), command: 'apply' });
    const err = await lockError(() => createFileStateStore(statePath()).lock(me()));
    expect(messageOf(err)).toMatch(
      new RegExp(
        `locked by apply \\(pid ${process.pid} on host [^)]+\\) since [^;]+; wait \\(--lock-timeout 5m\\), or run tenantform force-unlock if that process is gone`,
      ),
    );
  });

  it('is not taken over when it comes from another host, however dead it looks', async () => {
    await leaveLock({ pid: deadPid(), host: 'another-host', command: 'apply', since: SINCE });
    const err = await lockError(() => createFileStateStore(statePath()).lock(me()));
    expect(err.message).toContain('locked by apply');
    expect(err.message).toContain('on host another-host');
    expect(messageOf(err)).toContain('--lock-timeout');
    expect(err.message).toContain('force-unlock');
  });

  it.skipIf(!hasProc)(
    'is not taken over from another pid namespace (a process of another container)',
    async () => {
      await leaveLock({
        pid: deadPid(),
        host: hostname(),
        command: 'apply',
        since: SINCE,
        pidNamespace: 'pid:[1]',
      });
      await expect(createFileStateStore(statePath()).lock(me())).rejects.toThrow(/locked by apply/);
    },
  );

  it('is taken over by exactly one of several processes racing for it', async () => {
    await leaveLock({ pid: deadPid(), host: hostname(), command: 'apply', since: SINCE });
    const racers = Array.from({ length: 6 }, () => createFileStateStore(statePath()));
    const results = await Promise.allSettled(racers.map((s) => s.lock({ ...me(), ...processIdentity() })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/locked by apply/);
  });

  it('says the journal of the dead holder was replayed when a session takes over', async () => {
    const dead = deadPid();
    const first = await openState(createFileStateStore(statePath()), { command: 'apply', pid: dead });
    await first.record({ op: 'remove', address: 'rate_limit_policy["a","b","c"]' });
    // killed here: no commit, no release
    const reports: [LockInfo, number][] = [];
    const second = await openState(createFileStateStore(statePath()), {
      command: 'apply',
      onTakeover: (holder, replayed) => reports.push([holder, replayed]),
    });
    try {
      expect(reports).toEqual([[first.lock, 1]]);
      expect(readdirSync(dir).filter((f) => f.includes('takeover'))).toEqual([]);
    } finally {
      await second.release();
    }
  });

  it('is removed by force-unlock together with a takeover marker left by a takeover killed half-way', async () => {
    const stale = await leaveLock({ pid: deadPid(), host: hostname(), command: 'apply', since: SINCE });
    const store = createFileStateStore(statePath());
    // A marker as a takeover killed between creating it and removing the lock leaves it.
    const { createHash } = await import('node:crypto');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      `${statePath()}.lock.takeover-${createHash('sha256').update(stale.id).digest('hex').slice(0, 16)}`,
      '',
    );
    await expect(store.lock(me())).rejects.toThrow(/no longer running on this host/);
    expect((await store.forceUnlock())?.id).toBe(stale.id);
    expect(readdirSync(dir)).toEqual([]);
    await store.lock(me());
  });
});
