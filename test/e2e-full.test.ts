/**
 * End to end against `tenantform emulator --api full` over 127.0.0.1: a
 * policy limit change is one PATCH keeping the id; a profile rename is one
 * PATCH; an action_id change is a replace; removed profiles and permissions
 * are deleted from the tenant; after each, a plan is empty and an apply sends
 * nothing. The same changes under spec (flag, tenantform.yaml, or nothing)
 * behave as before profiles existed, and a saved plan is refused under the
 * other profile.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { defaultStateFile } from './helpers/e2e.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

const policy = (limit: number) => `
rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: ${limit} }
`;
const permissions = (names: string[]) =>
  names.length === 0
    ? ''
    : `
user_permissions:
  - user_id: "auth0|alice"
    permissions:
${names.map((n) => `      - { resource_server_identifier: "https://api.example.com/", permission_name: "${n}" }`).join('\n')}
`;
const profile = (name: string, actionId: string) => `
token_exchange_profiles:
  - name: ${name}
    subject_token_type: urn:partner:legacy-token
    action_id: ${actionId}
    type: custom_authentication
`;

/** The Actions and permissions these configs name, as the full profile's tenant must have them. */
const REFERENCES = referenceSeed({
  actions: ['act_1', 'act_2'],
  permissions: ['read:reports', 'write:reports', 'admin:reports'].map(
    (name) => ['https://api.example.com/', name] as const,
  ),
});

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

function writeConfig(parts: { limit?: number; perms?: string[]; profile?: [string, string] | null }): void {
  const text = [
    policy(parts.limit ?? 100),
    permissions(parts.perms ?? ['read:reports', 'write:reports']),
    parts.profile === null ? '' : profile(...(parts.profile ?? ['Partner SSO', 'act_1'])),
  ].join('');
  writeFileSync(join(dir, 'config', 'tenant.yaml'), text);
}

async function cli(...args: string[]) {
  return runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
}

const apply = (...extra: string[]) =>
  cli('apply', 'config', '--auto-approve', '--base-url', emulator.baseUrl, ...extra);
const plan = (...extra: string[]) => cli('plan', 'config', ...extra);
/** --state naming the state a saved plan was made from: apply takes no other, and `dir`'s default is not config's. */
const stateOf = (file: string) => [
  '--state',
  (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { state_location: { path: string } }).state_location
    .path,
];

/** The state's record of the one resource of `kind`. */
function recordOf(kind: string): Record<string, unknown> | undefined {
  const state = JSON.parse(readFileSync(defaultStateFile(join(dir, 'config'), emulator.baseUrl), 'utf8')) as {
    resources: { kind: string }[];
  };
  return state.resources.find((r) => r.kind === kind);
}

async function expectSettled(...extra: string[]): Promise<void> {
  const p = await plan(...extra);
  expect(p.code, p.stderr).toBe(0);
  expect(p.stdout).toContain('No changes.');
  const before = emulator.requestCount();
  const again = await apply(...extra);
  expect(again.code, again.stderr).toBe(0);
  expect(emulator.requestCount()).toBe(before);
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
  emulator = await startEmulator({ api: 'full', seed: REFERENCES });
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('apply --api full against the emulator --api full', () => {
  it('changes a policy limit with one PATCH that keeps the id', async () => {
    writeConfig({});
    expect((await apply('--api', 'full')).code).toBe(0);
    const [created] = emulator.snapshot().rateLimitPolicies;

    writeConfig({ limit: 500 });
    const p = await plan('--api', 'full');
    expect(p.stdout).toContain('API profile: full');
    expect(p.stdout).toContain(
      '  ~ rate limit policy default: limit 100 → 500\n' +
        '      rate_limit_policy["oauth_authentication_api","client","default"]',
    );
    expect(p.stdout).toContain('      -   limit: 100\n      +   limit: 500');
    expect(p.stdout).toContain(
      'Plan: 0 to create, 1 to update, 0 to replace, 0 to delete, 0 to forget, 0 blocked.',
    );

    const before = emulator.requestCount();
    const stats0 = emulator.stats().byRoute['PATCH /api/v2/rate-limit-policies/{id}'] ?? 0;
    const run = await apply('--api', 'full');
    expect(run.code, run.stderr).toBe(0);
    expect(emulator.requestCount() - before).toBe(1);
    expect(emulator.stats().byRoute['PATCH /api/v2/rate-limit-policies/{id}']).toBe(stats0 + 1);
    const [updated] = emulator.snapshot().rateLimitPolicies;
    expect(updated!.id).toBe(created!.id);
    expect(updated!.configuration).toEqual({ action: 'block', limit: 500 });
    expect(updated!.updated_at > created!.updated_at).toBe(true);
    expect(recordOf('rate_limit_policy')).toMatchObject({
      id: created!.id,
      attributes: { configuration: { action: 'block', limit: 500 } },
      created_at: created!.created_at,
    });
    await expectSettled('--api', 'full');
  });

  it('renames a profile with one PATCH and replaces it when its action_id changes', async () => {
    writeConfig({});
    expect((await apply('--api', 'full')).code).toBe(0);
    const original = emulator.snapshot().tokenExchangeProfiles[0]!;

    writeConfig({ profile: ['Partner SSO v2', 'act_1'] });
    const before = emulator.requestCount();
    const rename = await apply('--api', 'full');
    expect(rename.code, rename.stderr).toBe(0);
    expect(rename.stdout).toContain('name changed; updated in place (same id)');
    expect(emulator.requestCount() - before).toBe(1);
    expect(emulator.stats().byRoute['PATCH /api/v2/token-exchange-profiles/{id}']).toBe(1);
    expect(emulator.snapshot().tokenExchangeProfiles).toEqual([
      expect.objectContaining({ id: original.id, name: 'Partner SSO v2', action_id: 'act_1' }),
    ]);
    // The PATCH answers no body: the record keeps the created_at of the create.
    expect(recordOf('token_exchange_profile')).toMatchObject({
      id: original.id,
      attributes: { name: 'Partner SSO v2' },
      created_at: original.created_at,
    });
    await expectSettled('--api', 'full');

    writeConfig({ profile: ['Partner SSO v2', 'act_2'] });
    const p = await plan('--api', 'full');
    expect(p.stdout).toContain('-/+ token exchange profile');
    expect(p.stdout).toContain('action_id cannot be updated after creation; it is deleted and created again');
    const replace = await apply('--api', 'full');
    expect(replace.code, replace.stderr).toBe(0);
    const [replaced] = emulator.snapshot().tokenExchangeProfiles;
    expect(replaced).toMatchObject({ name: 'Partner SSO v2', action_id: 'act_2' });
    expect(replaced!.id).not.toBe(original.id);
    expect(emulator.stats().byRoute['DELETE /api/v2/token-exchange-profiles/{id}']).toBe(1);
    await expectSettled('--api', 'full');
  });

  it('deletes a removed profile and removed permissions (one DELETE for the user) from the tenant', async () => {
    writeConfig({ perms: ['read:reports', 'write:reports', 'admin:reports'] });
    expect((await apply('--api', 'full')).code).toBe(0);

    writeConfig({ perms: ['read:reports'], profile: null });
    const p = await plan('--api', 'full');
    expect(p.stdout).toContain(
      'Plan: 0 to create, 0 to update, 0 to replace, 3 to delete, 0 to forget, 0 blocked.',
    );
    const before = emulator.requestCount();
    const run = await apply('--api', 'full');
    expect(run.code, run.stderr).toBe(0);
    expect(emulator.requestCount() - before).toBe(2);
    expect(emulator.stats().byRoute['DELETE /api/v2/users/{id}/permissions']).toBe(1);
    const tenant = emulator.snapshot();
    expect(tenant.tokenExchangeProfiles).toEqual([]);
    expect(tenant.userPermissions['auth0|alice']!.map((g) => g.permission_name)).toEqual(['read:reports']);
    await expectSettled('--api', 'full');
  });

  it('takes the profile from tenantform.yaml (api: full), and --api spec overrides it', async () => {
    writeFileSync(
      join(dir, 'tenantform.yaml'),
      `environments:\n  dev:\n    paths: [config]\n    base_url: ${emulator.baseUrl}\n    api: full\n`,
    );
    writeConfig({});
    const first = await runCli(['apply', '.', '--auto-approve'], {
      cwd: dir,
      env: { TENANTFORM_TOKEN: emulator.token, TENANTFORM_ALLOWED_HOSTS: new URL(emulator.baseUrl).host },
    });
    expect(first.code, first.stderr).toBe(0);
    writeConfig({ limit: 7 });
    const full = await runCli(['plan', '.'], { cwd: dir, env: {} });
    expect(full.stdout).toContain('1 to update');
    const spec = await runCli(['plan', '.', '--api', 'spec'], { cwd: dir, env: {} });
    expect(spec.stdout).toContain('-/+ rate limit policy');
    expect(spec.stdout).not.toContain('API profile');
  });

  it('refuses an unknown api in tenantform.yaml at its line, and an unknown --api', async () => {
    writeFileSync(
      join(dir, 'tenantform.yaml'),
      'environments:\n  dev:\n    paths: [config]\n    api: partial\n',
    );
    writeConfig({});
    const bad = await runCli(['plan', '.'], { cwd: dir, env: {} });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('tenantform.yaml:4:10: environments.dev.api must be spec');
    const flag = await cli('plan', 'config', '--api', 'everything');
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toMatch(/--api.*everything/);
    expect(emulator.requestCount()).toBe(0);
  });
});

describe('the API profile of saved plans', () => {
  it('records it, prints it, and refuses the plan under the other profile', async () => {
    writeConfig({});
    expect((await apply('--api', 'full')).code).toBe(0);
    writeConfig({ limit: 9 });
    const saved = await plan('--api', 'full', '--out', 'full.tfplan');
    expect(saved.code, saved.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'full.tfplan'), 'utf8')) as { api: string }).api).toBe('full');
    const show = await cli('show', 'full.tfplan');
    expect(show.stdout).toContain('API profile: full');

    const before = emulator.requestCount();
    const refused = await cli(
      'apply',
      'full.tfplan',
      '--auto-approve',
      '--api',
      'spec',
      ...stateOf('full.tfplan'),
    );
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      'full.tfplan was made for API profile full, but this apply uses API profile spec',
    );
    expect(emulator.requestCount()).toBe(before);

    const ok = await cli(
      'apply',
      'full.tfplan',
      '--auto-approve',
      '--base-url',
      emulator.baseUrl,
      ...stateOf('full.tfplan'),
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(emulator.snapshot().rateLimitPolicies[0]!.configuration).toEqual({ action: 'block', limit: 9 });
  });

  it('refuses a spec plan under --api full', async () => {
    writeConfig({});
    const saved = await plan('--out', 'spec.tfplan');
    expect(saved.code).toBe(0);
    const refused = await cli(
      'apply',
      'spec.tfplan',
      '--auto-approve',
      '--api',
      'full',
      '--base-url',
      emulator.baseUrl,
      ...stateOf('spec.tfplan'),
    );
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      'spec.tfplan was made for API profile spec, but this apply uses API profile full',
    );
    expect(emulator.requestCount()).toBe(0);
  });
});

describe('without --api (spec) against the same emulator', () => {
  it('replaces a changed policy, blocks a renamed profile, forgets removed permissions, as before', async () => {
    writeConfig({ perms: ['read:reports', 'write:reports'] });
    expect((await apply()).code).toBe(0);
    writeConfig({ limit: 3, perms: ['read:reports'], profile: ['Partner SSO v2', 'act_1'] });
    const p = await plan();
    expect(p.stdout).not.toContain('API profile');
    expect(p.stdout).toContain('-/+ rate limit policy');
    expect(p.stdout).toContain('  . user permission');
    expect(p.stdout).toContain('  ! token exchange profile');
    expect(p.stdout).toContain('Plan: 0 to create, 1 to replace, 0 to delete, 1 to forget, 1 blocked.');
    const run = await apply('--skip-blocked');
    expect(run.code, run.stderr).toBe(0);
    expect(emulator.stats().byRoute['PATCH /api/v2/rate-limit-policies/{id}']).toBeUndefined();
    expect(emulator.stats().byRoute['DELETE /api/v2/users/{id}/permissions']).toBeUndefined();
    expect(emulator.snapshot().userPermissions['auth0|alice']).toHaveLength(2);
  });
});

describe('destroy --api full', () => {
  it('deletes profiles and permissions too, leaving the tenant empty', async () => {
    writeConfig({});
    expect((await apply('--api', 'full')).code).toBe(0);
    const run = await cli(
      'destroy',
      'config',
      '--auto-approve',
      '--api',
      'full',
      '--base-url',
      emulator.baseUrl,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(emulator.snapshot()).toMatchObject({
      rateLimitPolicies: [],
      userPermissions: {},
      tokenExchangeProfiles: [],
      // The reference data is not tenantform's: left as it was.
      actions: REFERENCES.actions,
    });
    expect(run.stdout).not.toContain('forgotten');
  });
});

describe('apply --api full --json', () => {
  it('prints schema-valid lines for an update, with its outcome', async () => {
    const { checkSchema } = await import('../src/schemas/index.js');
    writeConfig({});
    expect((await apply('--api', 'full')).code).toBe(0);
    writeConfig({ limit: 42 });
    const run = await apply('--api', 'full', '--json');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const line of lines) expect(checkSchema('applyEvent', line)).toEqual([]);
    expect(lines[0]).toMatchObject({ type: 'plan', api: 'full', summary: { update: 1 } });
    expect(lines.find((l) => l.type === 'done')).toMatchObject({
      action: 'update',
      outcome: 'updated',
      status: 200,
    });
  });
});
