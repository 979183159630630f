import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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

describe('findConfigFiles and symlinks', () => {
  it('follows a symlinked directory (it was skipped, and its resources planned for deletion)', async () => {
    await mkdir(join(root, 'shared', 'policies'), { recursive: true });
    await writeFile(join(root, 'shared', 'policies', 'default.yaml'), 'rate_limit_policies: []\n');
    await mkdir(join(root, 'config'));
    await writeFile(join(root, 'config', 'own.yaml'), 'user_permissions: []\n');
    await symlink(join(root, 'shared'), join(root, 'config', 'shared'));
    const result = await findConfigFiles(['config'], root, new Set());
    expect(result.issues).toEqual([]);
    expect(result.files).toEqual([
      join(root, 'config', 'own.yaml'),
      join(root, 'config', 'shared', 'policies', 'default.yaml'),
    ]);
  });

  it('follows a symlink named like a config file to a directory', async () => {
    await mkdir(join(root, 'elsewhere'));
    await writeFile(join(root, 'elsewhere', 'a.yml'), 'user_permissions: []\n');
    await mkdir(join(root, 'config'));
    await symlink(join(root, 'elsewhere'), join(root, 'config', 'linked.yaml'));
    const result = await findConfigFiles(['config'], root, new Set());
    expect(result.files).toEqual([join(root, 'config', 'linked.yaml', 'a.yml')]);
  });

  it('reports a symlink back into the tree as a loop, by its own path, and still finds the rest', async () => {
    await mkdir(join(root, 'config', 'sub'), { recursive: true });
    await writeFile(join(root, 'config', 'sub', 'a.yaml'), 'user_permissions: []\n');
    await symlink(join(root, 'config'), join(root, 'config', 'sub', 'back'));
    const result = await findConfigFiles(['config'], root, new Set());
    expect(result.files).toEqual([join(root, 'config', 'sub', 'a.yaml')]);
    expect(result.issues).toEqual([
      {
        file: join('config', 'sub', 'back'),
        line: 0,
        col: 0,
        code: 'PATH_UNREADABLE',
        message:
          'symlink loop: this directory leads back to a directory it is inside; remove the link or point it elsewhere',
      },
    ]);
  });
});
