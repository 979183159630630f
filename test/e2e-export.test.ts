/**
 * tenantform export end to end (API profile full): an emulator holding 200
 * policies, 5 profiles and a user's permissions, exported into a fresh
 * directory that validates and plans to "No changes".
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LATER_KINDS_ZERO, otherListedKinds } from './helpers/kind-examples.js';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { defaultStateFile, postToEmulator } from './helpers/e2e.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

function cli(...args: string[]) {
  return runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
}

const api = () => ['--api', 'full', '--base-url', emulator.baseUrl];

const post = (path: string, body: unknown) => postToEmulator(emulator, path, body);

/** 200 policies (every action, one with a literal "${" in its redirect URI), 5 profiles, 3 permissions of two users. */
async function seed(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const configuration =
      i === 0
        ? { action: 'redirect', limit: 5, redirect_uri: 'https://example.com/slow?${not-a-variable}' }
        : i % 3 === 0
          ? { action: 'allow' }
          : { action: i % 3 === 1 ? 'block' : 'log', limit: i };
    await post('/rate-limit-policies', {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: `client_id:app${String(i).padStart(3, '0')}`,
      configuration,
    });
  }
  for (let i = 0; i < 5; i++) {
    await post('/token-exchange-profiles', {
      name: `Partner ${i}`,
      subject_token_type: `urn:partner:token-${i}`,
      action_id: `act-${i}`,
      type: 'custom_authentication',
    });
  }
  await post('/users/auth0%7Calice/permissions', {
    permissions: [
      { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
      { resource_server_identifier: 'https://api.example.com/', permission_name: 'write:reports' },
    ],
  });
  await post('/users/auth0%7Cbob/permissions', {
    permissions: [
      { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
    ],
  });
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  emulator = await startEmulator({
    api: 'full',
    users: ['auth0|alice', 'auth0|bob'],
    // The applications and Actions the seeded policies and profiles name.
    seed: referenceSeed({
      clients: Array.from({ length: 200 }, (_, i) => `app${String(i).padStart(3, '0')}`),
      actions: Array.from({ length: 5 }, (_, i) => `act-${i}`),
    }),
  });
  await seed();
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('tenantform export', () => {
  it('writes files that validate and plan to "No changes", paging through the lists', async () => {
    writeFileSync(join(dir, 'users.txt'), '# reviewers\nauth0|bob\n\n');
    const before = emulator.requestCount();
    const exported = await cli(
      'export',
      'tenant',
      '--user',
      'auth0|alice',
      '--users-file',
      'users.txt',
      ...api(),
    );
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    // 200 policies in pages of 100, 5 profiles in one, one page per user.
    // (And a page of nothing for each other kind.)
    expect(emulator.requestCount() - before).toBe(
      2 + 1 + 2 + otherListedKinds('rate_limit_policy', 'token_exchange_profile'),
    );
    expect(exported.stdout).toMatch(
      new RegExp(
        `Exported 200 rate limit policies, 5 token exchange profiles${LATER_KINDS_ZERO} and 3 permissions of 2 users to tenant:`,
      ),
    );
    const policies = readFileSync(join(dir, 'tenant', 'rate-limit-policies.yaml'), 'utf8');
    expect(policies.startsWith('# yaml-language-server: $schema=./schemas/config.schema.json\n')).toBe(true);
    expect(policies).toContain('redirect_uri: https://example.com/slow?$${not-a-variable}');
    expect(existsSync(join(dir, 'tenant', 'schemas', 'config.schema.json'))).toBe(true);

    const validate = await cli('validate', 'tenant');
    expect(validate.code).toBe(0);
    const fmt = await cli('fmt', 'tenant', '--check');
    expect(fmt.code).toBe(0);

    const plan = await cli('plan', 'tenant', '--detailed-exitcode', ...api());
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes');
    const refreshed = await cli('plan', 'tenant', '--refresh', '--detailed-exitcode', ...api());
    expect(refreshed.code).toBe(0);
    expect(refreshed.stdout).toContain('Refreshed from the tenant: no drift');

    const state = JSON.parse(
      readFileSync(defaultStateFile(join(dir, 'tenant'), emulator.baseUrl), 'utf8'),
    ) as {
      resources: { id: string | null }[];
    };
    expect(state.resources).toHaveLength(208);
  });

  it('--no-state writes the files only; an existing file is not overwritten without --force', async () => {
    const first = await cli('export', 'tenant', '--no-state', ...api());
    expect(first.code).toBe(0);
    expect(existsSync(join(dir, 'tenant', '.tenantform'))).toBe(false);
    const plan = await cli('plan', 'tenant', '--detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('205 to create');

    const again = await cli('export', 'tenant', '--no-state', ...api());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('pass --force to overwrite them');
    expect((await cli('export', 'tenant', '--no-state', '--force', ...api())).code).toBe(0);
  });

  it('refuses under the spec profile', async () => {
    const spec = await cli('export', 'tenant', '--base-url', emulator.baseUrl);
    expect(spec.code).toBe(1);
    expect(spec.stderr).toContain('export reads the tenant');
  });
});
