import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Tests run as root in CI, where chmod 000 does not stop a read: fail one readdir instead.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    readdir: ((path: string, options: never) => {
      if (String(path).endsWith('locked')) {
        return Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
      }
      return actual.readdir(path, options);
    }) as typeof actual.readdir,
  };
});

const { findConfigFiles } = await import('./source-files.js');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-files-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('findConfigFiles', () => {
  it('reports a directory deep in the tree that cannot be listed by its own path, not the top one', async () => {
    await mkdir(join(root, 'config', 'a', 'locked'), { recursive: true });
    await writeFile(join(root, 'config', 'a', 'ok.yaml'), 'user_permissions: []\n');
    const result = await findConfigFiles(['config'], root, new Set());
    expect(result.files).toEqual([join(root, 'config', 'a', 'ok.yaml')]);
    expect(result.issues).toEqual([
      {
        file: join('config', 'a', 'locked'),
        line: 0,
        col: 0,
        code: 'PATH_UNREADABLE',
        message: 'cannot list this directory: permission denied',
      },
    ]);
  });
});
