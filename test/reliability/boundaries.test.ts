/**
 * Boundaries of the CLI against the emulator: plain http:// only to loopback
 * hosts; a user id stays inside its path segment whatever it holds; every
 * file tenantform writes (state, backup, journal, lock, plan) is mode 0600,
 * even under umask 000 and over an existing file. (Corrupt state files:
 * corrupt-state.test.ts.)
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { childEnv, INTERNAL_ERROR, useTrappedEmulator } from './harness.js';
import {
  buildConfig,
  configText,
  permissions,
  seededRandom,
  writeConfig,
  type TenantConfig,
} from './tenant-config.js';

const t = useTrappedEmulator('tenantform-bounds-', 2);

const configPath = () => join(t.dir, 'tenant.yaml');
const statePath = () => join(t.dir, 'state', 'state.json');
const small = (): TenantConfig =>
  buildConfig(seededRandom(9), 'bnd', { policies: 6, profiles: 2, users: 2, permissionsPerUser: 2 });
const apply = (...extra: string[]) =>
  runCli(
    [
      'apply',
      configPath(),
      '--auto-approve',
      '--base-url',
      t.emulator.baseUrl,
      '--state',
      statePath(),
      ...extra,
    ],
    { cwd: t.dir, env: { TENANTFORM_TOKEN: t.emulator.token } },
  );
const mode = (path: string) => statSync(path).mode & 0o777;

describe('plain http:// is refused for hosts other than loopback', () => {
  it.each([
    'http://example.com/api/v2',
    'http://10.0.0.1/api/v2',
    'http://169.254.169.254/api/v2',
    'http://127.0.0.1.nip.io/api/v2',
    'http://localhost.example.com/api/v2',
    'http://[::ffff:a00:1]/api/v2',
  ])('%s', async (url) => {
    writeConfig(configPath(), small());
    for (const how of ['flag', 'env'] as const) {
      const result = await runCli(
        [
          'apply',
          configPath(),
          '--auto-approve',
          '--state',
          statePath(),
          ...(how === 'flag' ? ['--base-url', url] : []),
        ],
        {
          cwd: t.dir,
          env: { TENANTFORM_TOKEN: t.emulator.token, ...(how === 'env' ? { TENANTFORM_BASE_URL: url } : {}) },
        },
      );
      expect(result.code, how).toBe(1);
      expect(result.stderr).toMatch(
        /uses plain http:\/\/ for .*; only https:\/\/ is allowed, except for loopback hosts/,
      );
      expect(result.stderr).not.toMatch(INTERNAL_ERROR);
      expect(existsSync(statePath()), 'a state was written').toBe(false);
      expect(existsSync(`${statePath()}.lock`), 'the lock was left').toBe(false);
    }
  });

  it.each(['http://127.0.0.1', 'http://localhost'])('accepts loopback %s', async (host) => {
    writeConfig(configPath(), small());
    const result = await runCli(
      [
        'apply',
        configPath(),
        '--auto-approve',
        '--state',
        statePath(),
        '--base-url',
        `${host}:${t.emulator.port}/api/v2`,
      ],
      { cwd: t.dir, env: { TENANTFORM_TOKEN: t.emulator.token } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('a user id stays inside its path segment', () => {
  const ids = [
    'auth0|5f7c8ec7c33c6c004bbafe82',
    'a/b',
    'x/../../rate-limit-policies',
    '../escape',
    '..%2F..',
    'q?x=1&y=2',
    'h#fragment',
    '100%',
    '%41%2F',
    'sp ace+plus',
    'ünïcødé|ß',
    '..a',
    'a..',
  ];

  it('assigns permissions to exactly these ids, and to no other path', async () => {
    const config: TenantConfig = {
      rate_limit_policies: [],
      user_permissions: ids.map((user_id) => ({ user_id, permissions: permissions('seg', 1) })),
      token_exchange_profiles: [],
    };
    writeFileSync(configPath(), configText(config));
    const result = await apply();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(Object.keys(t.emulator.snapshot().userPermissions).sort()).toEqual([...ids].sort());
    expect(t.emulator.stats().byRoute).toEqual({ 'POST /api/v2/users/{id}/permissions': ids.length });
  });

  it.each(['.', '..'])('refuses the dot segment %j without a request, and applies the rest', async (id) => {
    const config: TenantConfig = {
      rate_limit_policies: [],
      user_permissions: [id, 'auth0|ok'].map((user_id) => ({ user_id, permissions: permissions('dot', 1) })),
      token_exchange_profiles: [],
    };
    writeFileSync(configPath(), configText(config));
    const result = await apply();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/1 done, 1 failed, 0 not attempted/);
    expect(result.stderr).toMatch(/user id must be a non-empty id other than "\." or "\.\."/);
    expect(Object.keys(t.emulator.snapshot().userPermissions)).toEqual(['auth0|ok']);
    expect(t.emulator.stats().byRoute).toEqual({ 'POST /api/v2/users/{id}/permissions': 1 });
  });
});

describe('files tenantform writes are mode 0600', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('state, backup, journal and lock (mid-apply), plan file and plan key; the default state directories are 0700', async () => {
    const env = childEnv({ TENANTFORM_TOKEN: t.emulator.token });
    const config = small();
    writeConfig(configPath(), config);
    const args = [
      'apply',
      configPath(),
      '--auto-approve',
      '--base-url',
      t.emulator.baseUrl,
      '--state',
      statePath(),
      '--parallelism',
      '1',
    ];
    expect((await t.children.run(args, { cwd: t.dir, env })).code).toBe(0);

    // A second apply killed at its third request, once its journal is on disk: a worker sends
    // on while its answered operations are being synced (group commit), so under load the
    // first record may land after the third request arrives. The third request waits for it.
    const more = ['v2', 'v3'].flatMap((suffix) =>
      small().token_exchange_profiles.map((p) => ({
        ...p,
        subject_token_type: `${p.subject_token_type}:${suffix}`,
      })),
    );
    writeConfig(configPath(), {
      ...config,
      token_exchange_profiles: [...config.token_exchange_profiles, ...more],
    });
    const victim = t.children.start(args, { cwd: t.dir, env });
    let third = false;
    t.trap.arm(3, () => {
      third = true;
    });
    t.trap.before(1, async () => {
      if (!third) return;
      t.trap.before(1, null);
      await vi.waitFor(() => expect(existsSync(`${statePath()}.journal`)).toBe(true), {
        timeout: 30_000,
        interval: 20,
      });
      victim.process.kill('SIGKILL');
    });
    expect((await victim.result).signal).toBe('SIGKILL');
    for (const file of [`${statePath()}.journal`, `${statePath()}.lock`]) {
      expect(existsSync(file), file).toBe(true);
      expect(mode(file).toString(8), file).toBe('600');
    }
    // Recovery compacts the journal into a new state file, keeping the old one as the backup.
    expect((await runCli(['force-unlock', '--state', statePath()], { cwd: t.dir })).code).toBe(0);
    expect((await t.children.run(args, { cwd: t.dir, env })).code).toBe(0);
    for (const file of [statePath(), `${statePath()}.backup`]) {
      expect(existsSync(file), file).toBe(true);
      expect(mode(file).toString(8), file).toBe('600');
    }
    expect(mode(join(t.dir, 'state')).toString(8)).toBe('700');

    const planFile = join(t.dir, 'release.tfplan');
    expect(
      (await runCli(['plan', configPath(), '--state', statePath(), '--out', planFile], { cwd: t.dir })).code,
    ).toBe(0);
    expect(mode(planFile).toString(8)).toBe('600');
    expect(mode(`${statePath()}.key`).toString(8)).toBe('600');

    // The default state directory beside the config (one per target below it).
    const nested = join(t.dir, 'repo');
    mkdirSync(nested);
    writeConfig(join(nested, 'tenant.yaml'), small());
    const fresh = await runCli(['apply', 'repo', '--auto-approve', '--base-url', t.emulator.baseUrl], {
      cwd: t.dir,
      env: { TENANTFORM_TOKEN: t.emulator.token },
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    const scoped = join(nested, '.tenantform', new URL(t.emulator.baseUrl).host.replace(':', '_'));
    expect(mode(join(nested, '.tenantform')).toString(8)).toBe('700');
    expect(mode(scoped).toString(8)).toBe('700');
    expect(mode(join(scoped, 'state.json')).toString(8)).toBe('600');
  });

  it('a plan saved over an existing, world-readable file', async () => {
    writeConfig(configPath(), small());
    const planFile = join(t.dir, 'release.tfplan');
    writeFileSync(planFile, 'old plan\n');
    chmodSync(planFile, 0o644);
    const result = await runCli(['plan', configPath(), '--state', statePath(), '--out', planFile], {
      cwd: t.dir,
    });
    expect(result.code).toBe(0);
    expect(readFileSync(planFile, 'utf8')).toMatch(/"format_version"/);
    expect(mode(planFile).toString(8)).toBe('600');
  });
});
