import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileStateStore } from './file-store.js';

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

describe('a lock left by a killed process', () => {
  it('is reported as stale, with the way out, when its pid is gone on this host', async () => {
    const store = createFileStateStore(join(dir, 'state.json'));
    const pid = deadPid();
    await store.lock({ pid, host: hostname(), command: 'apply', since: '2026-01-01T00:00:00.000Z' });
    const other = createFileStateStore(join(dir, 'state.json'));
    await expect(
      other.lock({ pid: process.pid, host: hostname(), command: 'plan', since: new Date().toISOString() }),
    ).rejects.toThrow(new RegExp(`pid ${pid} .*no longer running on this host.*force-unlock`));
  });

  it('is not called stale while its holder runs', async () => {
    const store = createFileStateStore(join(dir, 'state.json'));
    await store.lock({
      pid: process.ppid,
      host: hostname(),
      command: 'apply',
      since: '2026-01-01T00:00:00.000Z',
    });
    const other = createFileStateStore(join(dir, 'state.json'));
    const err = await other
      .lock({ pid: process.pid, host: hostname(), command: 'plan', since: new Date().toISOString() })
      .catch((e: unknown) => e as Error);
    expect(String(err)).toContain('wait, or run tenantform force-unlock if that process is gone');
  });
});
