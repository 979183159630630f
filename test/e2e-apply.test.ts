import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { defaultStateFile, PARTNER_PROFILE, useEmulatorWorkspace } from './helpers/e2e.js';

const POLICIES = `
rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:webapp
    configuration: { action: redirect, limit: 50, redirect_uri: https://example.com/slow }
`;
const PERMISSIONS = `
user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
      - { resource_server_identifier: "https://api.example.com/", permission_name: "write:reports" }
`;
const ws = useEmulatorWorkspace({
  'policies.yaml': POLICIES,
  'permissions.yaml': PERMISSIONS,
  'profiles.yaml': PARTNER_PROFILE,
});
const { cli, write } = ws;

/** The emulator's "default" policy, if it has one. */
const defaultPolicy = () =>
  ws.emulator.snapshot().rateLimitPolicies.find((p) => p.consumer_selector === 'default');
const applyArgs = () => ['apply', 'config', '--auto-approve', '--base-url', ws.emulator.baseUrl];
const statePath = () => defaultStateFile(join(ws.dir, 'config'), ws.emulator.baseUrl);
const readState = () =>
  JSON.parse(readFileSync(statePath(), 'utf8')) as {
    serial: number;
    lineage: string;
    resources: { address: string; id: string | null; adopted?: boolean }[];
  };

describe('plan and apply against the emulator', () => {
  it('creates everything, then plans no changes and applies with zero requests', async () => {
    const plan1 = await cli('plan', 'config', '--detailed-exitcode');
    expect(plan1.code).toBe(2);
    expect(plan1.stdout).toContain('Plan: 5 to create');

    const apply1 = await cli(...applyArgs());
    expect(apply1.stderr).toBe('');
    expect(apply1.code).toBe(0);
    const snap = ws.emulator.snapshot();
    expect(snap.rateLimitPolicies).toHaveLength(2);
    expect(snap.userPermissions['auth0|alice']).toHaveLength(2);
    expect(snap.tokenExchangeProfiles).toHaveLength(1);
    // one POST per policy and profile, one per user for permissions
    expect(ws.emulator.requestCount()).toBe(4);

    const state = readState();
    expect(state.resources).toHaveLength(5);
    expect(state.resources.find((r) => r.address.startsWith('rate_limit_policy'))?.id).toMatch(/^rlp_/);

    const plan2 = await cli('plan', 'config', '--detailed-exitcode');
    expect(plan2.code).toBe(0);
    expect(plan2.stdout).toContain('No changes');

    const before = ws.emulator.requestCount();
    const apply2 = await cli(...applyArgs());
    expect(apply2.code).toBe(0);
    expect(ws.emulator.requestCount()).toBe(before);
  });

  it.each([['--batch-size'], ['--permission-batch-size']])(
    'sends a batched kind %s resources per request (the old name works too)',
    async (flag) => {
      const apply = await cli(...applyArgs(), flag, '1');
      expect(apply.code, apply.stderr).toBe(0);
      expect(ws.emulator.stats().byRoute['POST /api/v2/users/{id}/permissions']).toBe(2);
      expect((await cli(...applyArgs(), '--state', 'other.json', flag, '0')).stderr).toContain(
        `${flag} must be`,
      );
    },
  );

  it('replaces a changed policy (delete, then create) and shows the diff', async () => {
    await cli(...applyArgs());
    const oldId = defaultPolicy()?.id;
    write('policies.yaml', POLICIES.replace('limit: 100', 'limit: 250'));

    const plan = await cli('plan', 'config', '--detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('-/+');
    expect(plan.stdout).toMatch(/-\s+"?limit"?: 100/);
    expect(plan.stdout).toMatch(/\+\s+"?limit"?: 250/);
    expect(plan.stdout).toContain('1 to replace');

    expect((await cli(...applyArgs())).code).toBe(0);
    const policies = ws.emulator
      .snapshot()
      .rateLimitPolicies.filter((p) => p.consumer_selector === 'default');
    expect(policies).toHaveLength(1);
    expect(policies[0]?.id).not.toBe(oldId);
    expect(policies[0]?.configuration).toEqual({ action: 'block', limit: 250 });
    expect((await cli('plan', 'config', '--detailed-exitcode')).code).toBe(0);
  });

  it('deletes a removed policy and forgets a removed profile, saying it stays on the tenant', async () => {
    await cli(...applyArgs());
    write(
      'policies.yaml',
      POLICIES.split('  - resource')[0] + '  - resource' + POLICIES.split('  - resource')[1],
    );
    write('profiles.yaml', 'token_exchange_profiles: []\n');

    const plan = await cli('plan', 'config');
    expect(plan.stdout).toContain('1 to delete');
    expect(plan.stdout).toContain('1 to forget');
    expect(plan.stdout).toMatch(/stays on the tenant/);

    const apply = await cli(...applyArgs());
    expect(apply.code).toBe(0);
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(1);
    expect(ws.emulator.snapshot().tokenExchangeProfiles).toHaveLength(1);
    expect(readState().resources.some((r) => r.address.startsWith('token_exchange_profile'))).toBe(false);
    expect((await cli('plan', 'config', '--detailed-exitcode')).code).toBe(0);
  });

  it('adopts a policy created out of band (409) and says its settings were not verified', async () => {
    expect((await ws.createDefaultPolicy({ action: 'log', limit: 1 })).status).toBe(201);
    const apply = await cli(...applyArgs());
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/already present \(adopted; settings not verified/);
    const adopted = readState().resources.find((r) => r.address.includes('"default"'));
    expect(adopted).toMatchObject({ id: null, adopted: true });
    expect((await cli('plan', 'config', '--detailed-exitcode')).code).toBe(0);
  });

  it('treats 404 on delete as already gone', async () => {
    await cli(...applyArgs());
    const id = defaultPolicy()!.id;
    const del = await fetch(`${ws.emulator.baseUrl}/rate-limit-policies/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ws.emulator.token}` },
    });
    expect(del.status).toBe(204);
    write('policies.yaml', 'rate_limit_policies: []\n');
    const apply = await cli(...applyArgs());
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('already gone');
    expect(readState().resources.some((r) => r.address.startsWith('rate_limit_policy'))).toBe(false);
  });

  it('reports a partial failure with counts, keeps what was done, and converges on re-run', async () => {
    await ws.restartEmulator({ users: ['auth0|someone-else'] });
    const apply = await cli(...applyArgs());
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/\d+ done, 2 failed, 0 not attempted/);
    expect(apply.stderr).toContain('user_permission');
    expect(readState().resources).toHaveLength(3);

    write('permissions.yaml', PERMISSIONS.replace(/auth0\|alice/g, 'auth0|someone-else'));
    const again = await cli(...applyArgs());
    expect(again.code).toBe(0);
    expect(readState().resources).toHaveLength(5);
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(2);
  });

  it('applies a saved plan exactly, and refuses it once the state has moved on', async () => {
    const planFile = join(ws.dir, 'release.tfplan');
    const plan = await cli('plan', 'config', '--out', planFile, '--base-url', ws.emulator.baseUrl);
    expect(plan.code).toBe(0);
    expect(statMode(planFile)).toBe(0o600);

    // the config changes after the plan was saved: the saved plan still applies as it was
    write('profiles.yaml', 'token_exchange_profiles: []\n');
    const apply = await cli(
      'apply',
      planFile,
      '--auto-approve',
      '--base-url',
      ws.emulator.baseUrl,
      '--state',
      statePath(),
    );
    expect(apply.code).toBe(0);
    expect(ws.emulator.snapshot().tokenExchangeProfiles).toHaveLength(1);

    const again = await cli(
      'apply',
      planFile,
      '--auto-approve',
      '--base-url',
      ws.emulator.baseUrl,
      '--state',
      statePath(),
    );
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/serial/);
  });

  it('refuses to apply unattended without --auto-approve, sending nothing', async () => {
    const apply = await cli('apply', 'config', '--base-url', ws.emulator.baseUrl);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('--auto-approve');
    expect(ws.emulator.requestCount()).toBe(0);
  });

  it('checks the target and credentials before asking, and asks nothing when they are missing', async () => {
    let asked = 0;
    const confirm = async () => {
      asked++;
      return true;
    };
    const noTarget = await runCli(['apply', 'config'], { cwd: ws.dir, env: {}, confirm });
    expect(noTarget.code).toBe(1);
    expect(noTarget.stderr).toContain('no API target');
    const remote = await runCli(['apply', 'config', '--base-url', 'http://example.com/api/v2'], {
      cwd: ws.dir,
      env: { TENANTFORM_TOKEN: 'x' },
      confirm,
    });
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('only https:// is allowed');
    expect(asked).toBe(0);
    expect(ws.emulator.requestCount()).toBe(0);
  });

  it('asks on a terminal and applies only after "yes"', async () => {
    const no = await runCli(['apply', 'config', '--base-url', ws.emulator.baseUrl], {
      cwd: ws.dir,
      env: { TENANTFORM_TOKEN: ws.emulator.token },
      confirm: async () => false,
    });
    expect(no.code).toBe(1);
    expect(no.stdout).toContain('nothing was sent');
    expect(ws.emulator.requestCount()).toBe(0);
    const yes = await runCli(['apply', 'config', '--base-url', ws.emulator.baseUrl], {
      cwd: ws.dir,
      env: { TENANTFORM_TOKEN: ws.emulator.token },
      confirm: async () => true,
    });
    expect(yes.code).toBe(0);
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(2);
  });

  it('needs no target or credentials for an apply with nothing to send', async () => {
    await cli(...applyArgs());
    const noop = await runCli(['apply', 'config', '--auto-approve'], { cwd: ws.dir, env: {} });
    expect(noop.code).toBe(0);
    expect(noop.stdout).toContain('No changes');
  });

  it('refuses a plan with blocked changes before asking', async () => {
    await cli(...applyArgs());
    write('profiles.yaml', PARTNER_PROFILE.replace('Partner SSO', 'Partner SSO v2'));
    let asked = false;
    const result = await runCli(['apply', 'config', '--base-url', ws.emulator.baseUrl], {
      cwd: ws.dir,
      env: { TENANTFORM_TOKEN: ws.emulator.token },
      confirm: async () => (asked = true),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--skip-blocked');
    expect(asked).toBe(false);
  });

  it('refuses blocked changes unless --skip-blocked', async () => {
    await cli(...applyArgs());
    write('profiles.yaml', PARTNER_PROFILE.replace('Partner SSO', 'Partner SSO v2'));
    write('policies.yaml', POLICIES.replace('limit: 100', 'limit: 101'));
    const before = ws.emulator.requestCount();
    const refused = await cli(...applyArgs());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/blocked/);
    expect(ws.emulator.requestCount()).toBe(before);

    const skipped = await cli(...applyArgs(), '--skip-blocked');
    expect(skipped.code).toBe(0);
    expect(defaultPolicy()?.configuration).toEqual({ action: 'block', limit: 101 });
  });

  it('imports an id for an adopted policy so that it can be replaced later', async () => {
    const created = await ws.createDefaultPolicy({ action: 'block', limit: 100 });
    const { id } = (await created.json()) as { id: string };
    await cli(...applyArgs());
    write('policies.yaml', POLICIES.replace('limit: 100', 'limit: 7'));
    const blocked = await cli('plan', 'config');
    expect(blocked.stdout).toContain('tenantform import');

    const wrong = await cli(
      'import',
      'rate_limit_policy',
      'oauth_authentication_api/client/default',
      'tep_x',
      '--config',
      'config',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('does not look like a rate_limit_policy id');
    const imported = await cli(
      'import',
      'rate_limit_policy',
      'oauth_authentication_api/client/default',
      id,
      '--config',
      'config',
    );
    expect(imported.code).toBe(0);
    const plan = await cli('plan', 'config');
    expect(plan.stdout).toContain('1 to replace');
    expect((await cli(...applyArgs())).code).toBe(0);
    expect(defaultPolicy()?.configuration).toEqual({ action: 'block', limit: 7 });
  });

  it('lists, shows and removes state entries', async () => {
    await cli(...applyArgs());
    const list = await cli('state', 'list', 'config');
    expect(list.stdout.trim().split('\n')).toHaveLength(5);
    const address = 'token_exchange_profile["urn:partner:legacy-token"]';
    const show = await cli('state', 'show', address, 'config');
    expect(JSON.parse(show.stdout)).toMatchObject({ address, id: expect.stringMatching(/^tep_/) });
    const rm = await cli('state', 'rm', address, 'config');
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain('stays on the tenant');
    expect((await cli('state', 'show', address, 'config')).code).toBe(1);
  });

  it('refuses a corrupted state file and leaves it untouched', async () => {
    await cli(...applyArgs());
    writeFileSync(statePath(), '{"format_version": 1, "lineage": ');
    chmodSync(statePath(), 0o600);
    const plan = await cli('plan', 'config');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('state.json');
    expect(readFileSync(statePath(), 'utf8')).toBe('{"format_version": 1, "lineage": ');
    expect(existsSync(statePath())).toBe(true);
  });
});

function statMode(path: string): number {
  return statSync(path).mode & 0o777;
}
