/**
 * Reading the tenant end to end (API profile full), against the emulator over
 * 127.0.0.1, with the official auth0 SDK changing the tenant behind
 * tenantform's back: drift in plan --refresh, apply --refresh converging,
 * tenantform refresh, adoption with ids, import by lookup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManagementClient } from 'auth0';
import { describe, expect, it } from 'vitest';
import { otherListedKinds } from './helpers/kind-examples.js';
import {
  defaultStateFile,
  PARTNER_PROFILE,
  PARTNER_REFERENCES,
  useEmulatorWorkspace,
} from './helpers/e2e.js';
import { sdkClient } from './helpers/sdk.js';

const POLICIES = `
rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: third_party_clients
    configuration: { action: log, limit: 20 }
`;
const PERMISSIONS = `
user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
`;
const ws = useEmulatorWorkspace(
  { 'policies.yaml': POLICIES, 'permissions.yaml': PERMISSIONS, 'profiles.yaml': PARTNER_PROFILE },
  { api: 'full', users: ['auth0|alice'], seed: PARTNER_REFERENCES },
);
const { cli } = ws;

const api = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

/** The official SDK, pointed at the emulator (client credentials of its demo client). */
function sdk(): ManagementClient {
  return sdkClient(ws.emulator);
}

/**
 * Changes a policy's configuration behind tenantform's back. The spec has no
 * update, so (as a person would with the spec's operations) it is deleted
 * and created again: the tenant then has another id and other settings.
 */
async function changeOutOfBand(client: ManagementClient, selector: string, configuration: object) {
  await client.rateLimitPolicies.delete(policyOf(selector)!.id);
  await client.rateLimitPolicies.create({
    resource: 'oauth_authentication_api',
    consumer: 'client',
    consumer_selector: selector,
    configuration: configuration as never,
  });
}

const policyOf = (selector: string) =>
  ws.emulator.snapshot().rateLimitPolicies.find((p) => p.consumer_selector === selector);

const stateResources = () =>
  (
    JSON.parse(readFileSync(defaultStateFile(join(ws.dir, 'config'), ws.emulator.baseUrl), 'utf8')) as {
      resources: {
        address: string;
        id: string | null;
        attributes: Record<string, unknown>;
        adopted?: boolean;
      }[];
    }
  ).resources;

describe('drift: plan --refresh and apply --refresh (API profile full)', () => {
  it('shows a policy changed and another deleted out of band, converges, and plans nothing afterwards', async () => {
    expect((await cli('apply', 'config', '--auto-approve', ...api())).code).toBe(0);
    const client = sdk();
    const defaultId = policyOf('default')!.id;
    await client.rateLimitPolicies.update(defaultId, { configuration: { action: 'block', limit: 7 } });
    await client.rateLimitPolicies.delete(policyOf('third_party_clients')!.id);
    await client.rateLimitPolicies.create({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'cimd_clients',
      configuration: { action: 'allow' },
    });

    // Without --refresh: the state is all plan knows, and it sends nothing.
    const before = ws.emulator.requestCount();
    const blind = await cli('plan', 'config', '--detailed-exitcode', ...api());
    expect(blind.code).toBe(0);
    expect(ws.emulator.requestCount()).toBe(before);

    const plan = await cli('plan', 'config', '--refresh', '--detailed-exitcode', ...api());
    const others = otherListedKinds('rate_limit_policy', 'token_exchange_profile');
    expect(plan.stderr).toContain(
      `Read ${3 + others} lists from the tenant, and its actions and APIs to check the config's references, in ${5 + others} requests.`,
    );
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Drift, read from the tenant: 1 changed, 1 deleted, 1 not managed.');
    expect(plan.stdout).toMatch(
      /changed +rate limit policy rate_limit_policy\["oauth_authentication_api","client","default"\]/,
    );
    expect(plan.stdout).toMatch(/- {3}limit: 100\n +\+ {3}limit: 7/);
    expect(plan.stdout).toContain('changed outside tenantform: configuration.limit');
    // Planned against what is live: the changed policy is updated back in place, the deleted one created.
    expect(plan.stdout).toContain('Plan: 1 to create, 1 to update, 0 to replace');
    expect(plan.stdout).toContain(
      'deleted outside tenantform; it is in the configuration, so it will be created again',
    );
    expect(plan.stdout).toMatch(/unmanaged +rate limit policy rate_limit_policy\[[^\]]*"cimd_clients"\]/);
    expect(plan.stdout).toContain('left alone');
    // Nothing was written by plan.
    expect(stateResources().find((r) => r.address.includes('"default"'))!.attributes.configuration).toEqual({
      action: 'block',
      limit: 100,
    });

    const json = JSON.parse((await cli('plan', 'config', '--refresh', '--format', 'json', ...api())).stdout);
    expect(json.drift.map((d: { drift: string }) => d.drift)).toEqual(['unmanaged', 'changed', 'deleted']);

    const apply = await cli('apply', 'config', '--refresh', '--auto-approve', ...api());
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(policyOf('default')).toMatchObject({
      id: defaultId,
      configuration: { action: 'block', limit: 100 },
    });
    expect(policyOf('third_party_clients')!.configuration).toEqual({ action: 'log', limit: 20 });
    expect(policyOf('cimd_clients')).toBeDefined(); // not managed: never touched

    const after = await cli('plan', 'config', '--refresh', '--detailed-exitcode', ...api());
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('No changes');
    expect(after.stdout).toContain('1 not managed');
    expect(stateResources().some((r) => r.address.includes('cimd_clients'))).toBe(false);
  });

  it('refuses --refresh under the spec profile before sending anything', async () => {
    const before = ws.emulator.requestCount();
    const plan = await cli('plan', 'config', '--refresh', '--base-url', ws.emulator.baseUrl);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('the spec API profile has no read operation');
    expect(ws.emulator.requestCount()).toBe(before);
  });

  it('refuses plan --refresh --out: a saved plan is checked against the stored state', async () => {
    const plan = await cli('plan', 'config', '--refresh', '--out', 'x.tfplan', ...api());
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('run tenantform refresh first');
  });
});

describe('tenantform refresh', () => {
  it('records what is live (locked, journaled) without changing the tenant', async () => {
    expect((await cli('apply', 'config', '--auto-approve', ...api())).code).toBe(0);
    const client = sdk();
    await changeOutOfBand(client, 'default', { action: 'log', limit: 3 });
    await client.rateLimitPolicies.delete(policyOf('third_party_clients')!.id);
    await client.users.permissions.delete('auth0|alice', {
      permissions: [
        { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
      ],
    });
    const snapshot = JSON.stringify(ws.emulator.snapshot());

    const refresh = await cli('refresh', 'config', ...api());
    expect(refresh.code).toBe(0);
    // The header plan and apply start with, aligned the same way.
    expect(refresh.stdout.split('\n').slice(0, 3)).toEqual([
      `State:  config/.tenantform/${new URL(ws.emulator.baseUrl).host.replace(':', '_')}/state.json`,
      `Target: ${ws.emulator.baseUrl}`,
      '',
    ]);
    expect(refresh.stdout).toContain('Drift, read from the tenant: 1 changed, 2 deleted.');
    expect(refresh.stdout).toContain(
      'changed outside tenantform: id, configuration.action, configuration.limit',
    );
    expect(refresh.stdout).toContain('Refreshed the state: 1 record written, 2 records removed.');
    expect(JSON.stringify(ws.emulator.snapshot())).toBe(snapshot);

    const resources = stateResources();
    expect(resources.find((r) => r.address.includes('"default"'))!.attributes.configuration).toEqual({
      action: 'log',
      limit: 3,
    });
    expect(resources.find((r) => r.address.includes('"default"'))!.id).toBe(policyOf('default')!.id);
    expect(resources.some((r) => r.address.includes('third_party_clients'))).toBe(false);
    expect(resources.some((r) => r.address.startsWith('user_permission'))).toBe(false);

    // The plan now shows what it takes to match the config again, without reading.
    const plan = await cli('plan', 'config', '--detailed-exitcode', ...api());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(
      /\+ rate limit policy third_party_clients: new, log 20\/s\n {6}rate_limit_policy\[[^\]]*"third_party_clients"\]/,
    );

    const again = await cli('refresh', 'config', ...api());
    expect(again.stdout).toContain('no drift');
    expect(again.stdout).toContain('nothing was written');
  });
});

describe('adoption with ids (API profile full)', () => {
  it('looks a 409 up: records the live id and settings, says they differ, and the next plan changes them', async () => {
    const created = await sdk().rateLimitPolicies.create({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'default',
      configuration: { action: 'block', limit: 5 },
    });
    const apply = await cli('apply', 'config', '--auto-approve', ...api());
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('already on the tenant (409) and adopted with its id and live settings');
    expect(apply.stdout).toContain(
      `(id ${created.id}): the tenant's configuration.limit differ from the config`,
    );

    const show = await cli(
      'state',
      'show',
      'rate_limit_policy["oauth_authentication_api","client","default"]',
      'config',
    );
    expect(show.code).toBe(0);
    const record = JSON.parse(show.stdout) as { id: string; attributes: { configuration: unknown } };
    expect(record.id).toBe(created.id);
    expect(record.attributes.configuration).toEqual({ action: 'block', limit: 5 });

    const plan = await cli('plan', 'config', '--detailed-exitcode', ...api());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/- {3}limit: 5\n +\+ {3}limit: 100/);
    expect(plan.stdout).toContain('1 to update'); // in place: the adopted record has its id
    expect((await cli('apply', 'config', '--auto-approve', ...api())).code).toBe(0);
    expect(policyOf('default')!.configuration).toEqual({ action: 'block', limit: 100 });
    expect((await cli('plan', 'config', '--detailed-exitcode', ...api())).code).toBe(0);
  });

  it('imports without an id by looking the resource up by its identity', async () => {
    const created = await sdk().tokenExchangeProfiles.create({
      name: 'Set by hand',
      subject_token_type: 'urn:partner:legacy-token',
      action_id: '6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c',
      type: 'custom_authentication',
    });
    const address = 'token_exchange_profile["urn:partner:legacy-token"]';
    const imported = await cli('import', address, '--config', 'config', ...api());
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`Imported ${address} with id ${created.id}`);
    const show = JSON.parse((await cli('state', 'show', address, 'config')).stdout) as {
      id: string;
      attributes: { name: string };
    };
    expect(show).toMatchObject({ id: created.id, attributes: { name: 'Set by hand' } });

    const missing = await cli(
      'import',
      'rate_limit_policy["oauth_authentication_api","client","default"]',
      '--config',
      'config',
      ...api(),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the tenant has no rate limit policy');
  });
});
