import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { defaultStateFile } from './helpers/e2e.js';
import { runCli, tempDir } from './helpers/cli.js';

/** --target, --replace, destroy and plan --destroy, end to end against the emulator. */

const policyYaml = (selector: string, limit: number) => `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: { action: block, limit: ${limit} }
`;
const config = (defaultLimit: number, cimdLimit: number) =>
  `rate_limit_policies:\n${policyYaml('default', defaultLimit)}${policyYaml('cimd_clients', cimdLimit)}` +
  `user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
token_exchange_profiles:
  - name: Partner SSO
    subject_token_type: urn:partner:legacy-token
    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
    type: custom_authentication
`;
const DEFAULT = 'rate_limit_policy["oauth_authentication_api","client","default"]';
const PROFILE = 'token_exchange_profile["urn:partner:legacy-token"]';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

const cli = (...args: string[]) => runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
const withApi = (...args: string[]) => cli(...args, '--base-url', emulator.baseUrl);
const writeConfig = (text: string) => writeFileSync(join(dir, 'config', 'tenant.yaml'), text);
const policies = () => emulator.snapshot().rateLimitPolicies;
const limitOf = (selector: string) =>
  (policies().find((p) => p.consumer_selector === selector)?.configuration as { limit?: number })?.limit;
const stateAddresses = () =>
  (
    JSON.parse(readFileSync(defaultStateFile(join(dir, 'config'), emulator.baseUrl), 'utf8')) as {
      resources: { address: string }[];
    }
  ).resources.map((r) => r.address);

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
  writeConfig(config(100, 20));
  emulator = await startEmulator();
  expect((await withApi('apply', 'config', '--auto-approve')).code).toBe(0);
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('--target', () => {
  it('a saved partial plan stays partial: apply changes only the target, the rest waits', async () => {
    writeConfig(config(150, 30));
    const plan = await cli('plan', 'config', '--target', DEFAULT, '--out', 'partial.tfplan');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('This plan is partial (--target)');
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to replace');
    const saved = JSON.parse(readFileSync(join(dir, 'partial.tfplan'), 'utf8')) as { targets?: string[] };
    expect(saved.targets).toEqual([DEFAULT]);

    const show = await cli('show', 'partial.tfplan');
    expect(show.stdout).toContain('This plan is partial (--target)');

    // Named: apply takes the state the plan was made from only when the command names it.
    const recorded = JSON.parse(readFileSync(join(dir, 'partial.tfplan'), 'utf8')) as {
      state_location: { path: string };
    };
    const apply = await withApi(
      'apply',
      'partial.tfplan',
      '--auto-approve',
      '--state',
      recorded.state_location.path,
    );
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('This plan is partial (--target)');
    expect(limitOf('default')).toBe(150);
    expect(limitOf('cimd_clients')).toBe(20);

    const rest = await cli('plan', 'config', '--detailed-exitcode');
    expect(rest.code).toBe(2);
    expect(rest.stdout).toContain('Plan: 0 to create, 1 to replace');
    expect(rest.stdout).toContain('cimd_clients');
  });

  it('apply --target applies only the target; an unknown address is an error naming the closest', async () => {
    writeConfig(config(150, 30));
    const apply = await withApi('apply', 'config', '--auto-approve', '--target', DEFAULT);
    expect(apply.code).toBe(0);
    expect(limitOf('default')).toBe(150);
    expect(limitOf('cimd_clients')).toBe(20);

    const before = emulator.requestCount();
    const typo = await withApi(
      'apply',
      'config',
      '--auto-approve',
      '--target',
      DEFAULT.replace('default', 'defualt'),
    );
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(`did you mean '${DEFAULT}'?`);
    expect(emulator.requestCount()).toBe(before);
  });

  it('refuses --target with a saved plan: the plan is applied as it was made', async () => {
    await cli('plan', 'config', '--out', 'full.tfplan');
    const apply = await withApi('apply', 'full.tfplan', '--auto-approve', '--target', DEFAULT);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('give --target and --replace to tenantform plan --out');
  });
});

describe('--replace', () => {
  it('recreates an unchanged policy (new id), and refuses a profile with the reason', async () => {
    const oldId = policies().find((p) => p.consumer_selector === 'default')?.id;
    const apply = await withApi('apply', 'config', '--auto-approve', '--replace', DEFAULT);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('replace requested with --replace');
    const now = policies().filter((p) => p.consumer_selector === 'default');
    expect(now).toHaveLength(1);
    expect(now[0]?.id).not.toBe(oldId);
    expect((await cli('plan', 'config', '--detailed-exitcode')).code).toBe(0);

    const refused = await cli('plan', 'config', '--replace', PROFILE);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('no operation to update or delete a token exchange profile');
  });
});

describe('destroy', () => {
  it('plan --destroy previews; destroy deletes policies and forgets the rest, saying they stay on the tenant', async () => {
    const preview = await cli('plan', 'config', '--destroy', '--detailed-exitcode');
    expect(preview.code).toBe(2);
    expect(preview.stdout).toContain('Plan: 0 to create, 0 to replace, 2 to delete, 2 to forget, 0 blocked.');
    expect(preview.stdout).toContain('they stay on the tenant');
    expect(stateAddresses()).toHaveLength(4); // 2 policies, 1 permission, 1 profile

    const before = emulator.requestCount();
    const refused = await withApi('destroy', 'config');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--auto-approve');
    const declined = await runCli(['destroy', 'config', '--base-url', emulator.baseUrl], {
      cwd: dir,
      env: { TENANTFORM_TOKEN: emulator.token },
      confirm: async (question) => {
        expect(question).toContain('destroy');
        return false;
      },
    });
    expect(declined.code).toBe(1);
    expect(emulator.requestCount()).toBe(before);

    const destroy = await withApi('destroy', 'config', '--auto-approve');
    expect(destroy.code).toBe(0);
    expect(destroy.stdout).toContain('Apply complete: 2 deleted, 2 forgotten.');
    expect(destroy.stdout).toContain('forgotten, not deleted');
    expect(destroy.stdout).toContain('they stay on the tenant');
    expect(policies()).toHaveLength(0);
    expect(emulator.snapshot().tokenExchangeProfiles).toHaveLength(1);
    expect(stateAddresses()).toEqual([]);

    const again = await withApi('destroy', 'config', '--auto-approve');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to destroy');
  });

  it('does not read the config: a destroy works when the config no longer validates', async () => {
    writeConfig('rate_limit_policies: [unclosed\n');
    const destroy = await withApi('destroy', 'config', '--auto-approve', '--target', DEFAULT);
    expect(destroy.code).toBe(0);
    expect(policies().map((p) => p.consumer_selector)).toEqual(['cimd_clients']);
  });
});
