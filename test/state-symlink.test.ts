/**
 * Issue 29, item 5: one state reached through a symbolic link and through its
 * real path is one state: one lock (so two applies never run at once on it),
 * and writes go through the link to the real file instead of replacing the
 * link with a file of its own (which left two diverged states).
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { createFileStateStore, LockError, openState, type StateDocument } from '../src/state/index.js';
import { holderInfo, profile, rejection } from './helpers/state-contract-fixtures.js';
import { runCli, tempDir } from './helpers/cli.js';

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-symlink-');
});
afterEach(() => work.cleanup());

describe('a file state behind a symbolic link', () => {
  it.each([
    ['the state file', (real: string, link: string) => symlinkSync(real, link)],
    ['its directory', (real: string, link: string) => symlinkSync(join(real, '..'), join(link, '..'))],
  ])('shares one lock with its real path when %s is a link', async (_what, makeLink) => {
    const real = join(work.dir, 'real', 'state.json');
    const link = join(work.dir, 'linked', 'state.json');
    mkdirSync(join(work.dir, 'real'));
    if (_what === 'the state file') mkdirSync(join(work.dir, 'linked'));
    makeLink(real, link);
    const viaReal = createFileStateStore(real);
    const viaLink = createFileStateStore(link);
    try {
      const held = await viaReal.lock(holderInfo('apply'));
      const err = await rejection(viaLink.lock(holderInfo('apply')));
      expect(err).toBeInstanceOf(LockError);
      expect((err as Error).message).toContain(`state ${real} is locked by apply`);
      await viaReal.unlock(held.id);
    } finally {
      await viaReal.close();
      await viaLink.close();
    }
  });

  it('locks and writes the real file of a link to a file not created yet', async () => {
    mkdirSync(join(work.dir, 'shared'));
    const real = join(work.dir, 'shared', 'state.json');
    const link = join(work.dir, 'state.json');
    symlinkSync('shared/state.json', link);
    const store = createFileStateStore(link);
    try {
      expect(store.description).toBe(real);
      const session = await openState(store, { command: 'apply' });
      await session.record({ op: 'put', resource: profile(1) });
      await session.commit();
      await session.release();
    } finally {
      await store.close();
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('shared/state.json');
    expect((JSON.parse(readFileSync(real, 'utf8')) as StateDocument).resources).toHaveLength(1);
  });
});

describe('apply through a linked state', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(() => emulator.stop());

  const config =
    'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 100 }\n';

  it('is refused while an apply holds the real path, and keeps the link a link', async () => {
    writeFileSync(join(work.dir, 'tenant.yaml'), config);
    mkdirSync(join(work.dir, 'real'));
    const real = join(work.dir, 'real', 'state.json');
    const link = join(work.dir, 'state.json');
    symlinkSync(real, link);
    const env = { TENANTFORM_TOKEN: emulator.token, TENANTFORM_BASE_URL: emulator.baseUrl };
    const apply = (state: string) =>
      runCli(['apply', 'tenant.yaml', '--auto-approve', '--state', state], { cwd: work.dir, env });

    const holder = createFileStateStore(real);
    const held = await holder.lock(holderInfo('apply'));
    const refused = await apply(link);
    await holder.unlock(held.id);
    await holder.close();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`state ${real} is locked by apply`);
    expect(emulator.requestCount()).toBe(0);

    const done = await apply(link);
    expect(done.code, done.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect((JSON.parse(readFileSync(real, 'utf8')) as StateDocument).resources).toHaveLength(1);
    const again = await runCli(['plan', 'tenant.yaml', '--state', real, '--detailed-exitcode'], {
      cwd: work.dir,
      env,
    });
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('a file state with a second name (a hard link)', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(() => emulator.stop());

  const policy = (selector: string) =>
    `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration: { action: block, limit: 100 }\n`;

  it('two applies at once through the two names: neither proceeds, nothing is sent, the lock is left free', async () => {
    const env = { TENANTFORM_TOKEN: emulator.token, TENANTFORM_BASE_URL: emulator.baseUrl };
    const apply = (state: string) =>
      runCli(['apply', 'tenant.yaml', '--auto-approve', '--state', state], { cwd: work.dir, env });
    writeFileSync(join(work.dir, 'tenant.yaml'), `rate_limit_policies:\n${policy('default')}`);
    mkdirSync(join(work.dir, 'real'));
    mkdirSync(join(work.dir, 'other'));
    const real = join(work.dir, 'real', 'state.json');
    const other = join(work.dir, 'other', 'state.json');
    expect((await apply(real)).code).toBe(0);
    linkSync(real, other);
    const selectors = Array.from({ length: 20 }, (_, i) => policy(`client_id:app${i}`)).join('');
    writeFileSync(join(work.dir, 'tenant.yaml'), `rate_limit_policies:\n${policy('default')}${selectors}`);
    const sent = emulator.requestCount();

    const [viaReal, viaOther] = await Promise.all([apply(real), apply(other)]);
    for (const [run, file] of [
      [viaReal, real],
      [viaOther, other],
    ] as const) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the state file ${file} has 2 names (hard links to the same file)`);
    }
    expect(emulator.requestCount()).toBe(sent);
    expect(existsSync(`${real}.lock`) || existsSync(`${other}.lock`)).toBe(false);
  });
});
