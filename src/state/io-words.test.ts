/**
 * The state's advice names a setting (where the state is kept) as data:
 * its own message names it neutrally, the command line by its flag. Messages
 * that embed another (a damaged journal, an unreadable rescue file) keep it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flagWords, messageOf } from '../cli/run-words.js';
import { plainText, type Wording } from '../resources/index.js';

// Tests run as root, where permission bits do not stop a read: refuse reads in one directory instead.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    readFile: ((path: string, ...rest: never[]) => {
      if (String(path).includes(`${'/'}unreadable${'/'}`)) {
        return Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
      }
      return actual.readFile(path, ...rest);
    }) as typeof actual.readFile,
  };
});

const { ioError, StateError } = await import('./errors.js');
const { createFileStateStore } = await import('./file-store.js');
const { findRescueFiles } = await import('./rescue.js');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-io-words-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a file-system failure', () => {
  it('names the state setting as data: by its flag on the command line, neutrally in its message', () => {
    const err = ioError('write /s/state.json', Object.assign(new Error('x'), { code: 'EROFS' }));
    expect(err.code).toBe('STATE_IO');
    expect(messageOf(err)).toBe(
      'could not write /s/state.json: read-only file system (EROFS); the file system is mounted read-only: ' +
        'keep the state on a writable one with --state FILE',
    );
    expect(err.message).toBe(
      'could not write /s/state.json: read-only file system (EROFS); the file system is mounted read-only: ' +
        'keep the state on a writable one with the state file setting FILE',
    );
  });

  it('without advice that names a setting, or without advice, is the same in both', () => {
    const full = ioError('write f', Object.assign(new Error('x'), { code: 'ENOSPC' }));
    expect(messageOf(full)).toBe(full.message);
    expect(full.message).toBe(
      'could not write f: no space left on the device (ENOSPC); free some space on that device, then run the command again',
    );
    const odd = ioError('write f', new Error('strange'));
    expect(odd.message).toBe('could not write f: strange');
    expect(odd.wording).toBeUndefined();
  });
});

describe('messages that embed another', () => {
  it('a journal damaged in the middle names state repair and the state setting', async () => {
    const file = join(root, 'state.json');
    await writeFile(`${file}.journal`, '{"v":1}\n' + '\0'.repeat(8) + '\n{"v":1}\n');
    const store = createFileStateStore(file);
    const err = await store.readJournal().then(
      () => null,
      (e: unknown) => e,
    );
    await store.close();
    expect(err).toBeInstanceOf(StateError);
    expect(messageOf(err)).toMatch(
      / Run tenantform state repair \(with the same path or --state\) to keep every complete entry; it saves the damaged journal as a backup first\.$/,
    );
    expect((err as Error).message).toContain('(with the same path or the state file setting)');
  });

  it('an unreadable rescue file is a problem that keeps the advice it embeds', async () => {
    const dir = join(root, 'unreadable');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir);
    const file = join(dir, 'state.json');
    await writeFile(`${file}.rescue-1.json`, '{}');
    const found = await findRescueFiles({ file, description: `file:${file}` });
    expect(found.files).toEqual([]);
    expect(found.problems).toHaveLength(1);
    const problem = found.problems[0]!;
    expect(typeof problem === 'string' ? problem : flagWords(problem)).toBe(
      `could not read ${file}.rescue-1.json: permission denied (EACCES); check that this user may read and write ` +
        'there (permissions, and attributes such as chattr +i), or keep the state elsewhere with --state FILE',
    );
    expect(plainText(problem as Wording)).toMatch(
      /keep the state elsewhere with the state file setting FILE$/,
    );
  });
});
