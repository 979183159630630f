import { mkdtemp, rm } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { messageOf } from '../cli/run-words.js';

// Tests run as root, where permission bits do not stop a write: fail the creates in one directory
// instead, as an immutable (chattr +i) or read-only state directory does.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    open: ((path: string, ...rest: never[]) => {
      if (String(path).includes(`${'/'}immutable${'/'}`) && String(rest[0]).includes('w')) {
        return Promise.reject(Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' }));
      }
      return actual.open(path, ...rest);
    }) as typeof actual.open,
  };
});

const { createFileStateStore } = await import('./file-store.js');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-file-lock-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a lock that cannot be created', () => {
  it('is one clear error naming the lock file and what to do, never an unhandled rejection', async () => {
    const store = createFileStateStore(join(root, 'immutable', 'state.json'));
    const info = { pid: process.pid, host: 'here', command: 'state rm', since: '2026-11-25T10:00:00.000Z' };
    const err = await store.lock(info).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    );
    // Let any rejection nobody awaited surface (vitest fails the run on one).
    await new Promise((resolve) => setImmediate(resolve));
    expect(err?.code).toBe('STATE_IO');
    // The setting it names is data: the command line names it by its flag.
    expect(messageOf(err)).toBe(
      `could not create lock ${join(root, 'immutable', 'state.json.lock')}: operation not permitted (EPERM); ` +
        'check that this user may read and write there (permissions, and attributes such as chattr +i), or keep the state elsewhere with --state FILE',
    );
    expect(err?.message).toMatch(/or keep the state elsewhere with the state file setting FILE$/);
    await store.close();
  });
});
