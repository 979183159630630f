/**
 * Switching in one command, end to end against the emulator: a Terraform
 * state (test/fixtures/peers/terraform) exported into config files and a
 * state that plan, and plan --refresh against the tenant those ids name,
 * find nothing to do; no sensitive value of the fixture reaches any output
 * or file; a broken source writes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LATER_KINDS_ZERO } from './helpers/kind-examples.js';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

const TF_STATE = resolve('test/fixtures/peers/terraform/terraform.tfstate');

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

function cli(...args: string[]) {
  return runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
}

const api = () => ['--api', 'full', '--base-url', emulator.baseUrl];

/** Every file below `root`, as text. */
function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'utf8'));
}

/** A policy of the emulator's state, with its id when given. */
const policy = (consumer_selector: string, configuration: Record<string, unknown>, id?: string) => ({
  ...(id ? { id } : {}),
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector,
  configuration,
});

/** The state export wrote: .tenantform/state.json, or the one of the target it was run against. */
function stateFile(): string {
  const root = join(dir, 'tenant', '.tenantform');
  const found = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) =>
    p.endsWith('state.json'),
  );
  expect(found).toHaveLength(1);
  return join(root, found[0]!);
}

/**
 * The exported directory validates and is formatted, and the next plan has
 * nothing to do, refreshed from the tenant too; its state as recorded.
 */
async function planIsEmpty() {
  expect((await cli('validate', 'tenant')).code).toBe(0);
  expect((await cli('fmt', 'tenant', '--check')).code).toBe(0);
  const plan = await cli('plan', 'tenant', '--detailed-exitcode', ...api());
  expect(plan.stdout).toContain('No changes');
  expect(plan.code).toBe(0);
  const refreshed = await cli('plan', 'tenant', '--refresh', '--detailed-exitcode', ...api());
  expect(refreshed.stdout).toContain('Refreshed from the tenant: no drift');
  expect(refreshed.code).toBe(0);
  const state = JSON.parse(readFileSync(stateFile(), 'utf8')) as {
    resources: { address: string; id: string | null; adopted?: boolean }[];
  };
  return { plan, state };
}

/** The tenant the Terraform fixture describes, with the same ids. */
function seedTerraformTenant(): void {
  emulator.replaceState({
    rateLimitPolicies: [
      policy('default', { action: 'block', limit: 100 }, 'rlp_tfDefault0001'),
      policy(
        'client_id:Wq2eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC',
        { action: 'redirect', limit: 1500, redirect_uri: 'https://partner.example.com/slow-down' },
        'rlp_tfPartner0002',
      ),
      policy('third_party_clients', { action: 'allow' }, 'rlp_tfPerApp0003'),
      policy('cimd_clients', { action: 'log', limit: 0 }, 'rlp_tfPerApp0004'),
    ],
    tokenExchangeProfiles: [
      {
        id: 'tep_tfPartnerSso',
        name: 'Partner SSO',
        subject_token_type: 'urn:partner:sso-token',
        action_id: 'a1b2c3d4-0000-4000-8000-00000000cafe',
        type: 'custom_authentication',
      },
    ],
    userPermissions: {
      'auth0|alice': [
        { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
        { resource_server_identifier: 'https://api.example.com/', permission_name: 'write:reports' },
      ],
      'auth0|bob': [
        { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
      ],
    },
    // The application and Action the Terraform resources name (the APIs are the emulator's defaults').
    ...referenceSeed({
      clients: ['Wq2eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC'],
      actions: ['a1b2c3d4-0000-4000-8000-00000000cafe'],
    }),
  });
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  emulator = await startEmulator({ api: 'full', users: ['auth0|alice', 'auth0|bob'] });
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('export --from-terraform', () => {
  it('writes config and state from a Terraform state; the next plan is empty, refreshed too', async () => {
    seedTerraformTenant();
    const exported = await cli('export', 'tenant', '--from-terraform', TF_STATE);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('skipped 4:');
    expect(exported.stdout).toContain(
      'auth0_client_credentials.partner_app: not a resource type tenantform manages',
    );
    expect(exported.stdout).toMatch(
      new RegExp(
        `Exported 4 rate limit policies, 1 token exchange profile${LATER_KINDS_ZERO} and 3 permissions of 2 users to tenant:`,
      ),
    );
    expect(exported.stdout).toContain("terraform state rm 'auth0_rate_limit_policy.default'");
    // It reads a file: not one request.
    expect(emulator.requestCount()).toBe(0);

    const { plan, state } = await planIsEmpty();
    expect(state.resources.map((r) => r.id).filter((id) => id !== null)).toEqual([
      'rlp_tfPerApp0004',
      'rlp_tfPartner0002',
      'rlp_tfDefault0001',
      'rlp_tfPerApp0003',
      'tep_tfPartnerSso',
    ]);
    expect(state.resources.some((r) => r.adopted)).toBe(false);

    // The fixture's secrets (a client secret, a sensitive output, a redirect_uri
    // marked sensitive) appear in no output, config file or state.
    const everything = [exported.stdout, exported.stderr, plan.stdout, ...filesBelow(join(dir, 'tenant'))];
    expect(readFileSync(TF_STATE, 'utf8')).toContain('tf-fixture-SECRET');
    for (const text of everything) expect(text).not.toContain('tf-fixture-SECRET');
  });

  it.each([
    ['not JSON', '{"version": 4, "resources": [', /^state\.tfstate:1:\d+: not JSON: /m],
    [
      'another version',
      '{"version": 3, "resources": []}',
      /^state\.tfstate:1:13: tenantform reads Terraform state format version 4/m,
    ],
    [
      'a policy missing a field',
      JSON.stringify({
        version: 4,
        resources: [
          {
            mode: 'managed',
            type: 'auth0_rate_limit_policy',
            name: 'default',
            instances: [
              { attributes: { id: 'rlp_x1', resource: 'oauth_authentication_api', consumer: 'client' } },
            ],
          },
        ],
      }),
      /^state\.tfstate:1:\d+: auth0_rate_limit_policy\.default: missing "configuration"$/m,
    ],
  ])('writes nothing for %s, naming where and what', async (_what, text, message) => {
    writeFileSync(join(dir, 'state.tfstate'), text);
    const run = await cli('export', 'tenant', '--from-terraform', 'state.tfstate');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Nothing was written.');
    expect(existsSync(join(dir, 'tenant'))).toBe(false);
  });

  it('a state with none of the types tenantform manages is an error, not an empty export', async () => {
    writeFileSync(join(dir, 'state.tfstate'), JSON.stringify({ version: 4, resources: [] }));
    const run = await cli('export', 'tenant', '--from-terraform', 'state.tfstate');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('holds none of the resource types tenantform manages');
    expect(existsSync(join(dir, 'tenant'))).toBe(false);
  });

  it('prints a terraform state rm that runs no injected code, quoted for the shell, naming each instance of a resource partly skipped', async () => {
    const state = JSON.parse(readFileSync(TF_STATE, 'utf8')) as { resources: Record<string, unknown>[] };
    const find = (name: string) =>
      state.resources.find((r) => r.type === 'auth0_rate_limit_policy' && r.name === name) as {
        instances: Record<string, unknown>[];
      } & Record<string, unknown>;
    find('default').module = `module.tenants["x'; touch pwned-module; echo '"]`;
    find('partner_app').name = "def'ault; touch pwned-name";
    // Instance [1] of per_app is skipped (sensitive_attributes in a form tenantform does not know).
    find('per_app').instances[1]!.sensitive_attributes = 'unknown';
    writeFileSync(join(dir, 'hostile.tfstate'), JSON.stringify(state));
    const exported = await cli('export', 'tenant', '--from-terraform', 'hostile.tfstate');
    expect(exported.code).toBe(0);
    const lines = exported.stdout.split('\n');
    const first = lines.findIndex((l) => l.startsWith('  terraform state rm '));
    let last = first;
    while (lines[last]!.endsWith('\\')) last++;
    const command = lines.slice(first, last + 1).join('\n');
    // A stand-in terraform that writes each argument on a line of its own.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(
      join(dir, 'bin', 'terraform'),
      '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > args.txt\n',
      {
        mode: 0o755,
      },
    );
    execFileSync('bash', ['-c', command], {
      cwd: dir,
      env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
    });
    expect(existsSync(join(dir, 'pwned-module')) || existsSync(join(dir, 'pwned-name'))).toBe(false);
    const args = readFileSync(join(dir, 'args.txt'), 'utf8').split('\n').slice(0, -1);
    expect(args.slice(0, 2)).toEqual(['state', 'rm']);
    expect(args).toContain(
      `module.tenants["x'; touch pwned-module; echo '"].auth0_rate_limit_policy.default`,
    );
    expect(args).toContain("auth0_rate_limit_policy.def'ault; touch pwned-name");
    expect(args).toContain('auth0_rate_limit_policy.per_app[0]');
    expect(args).not.toContain('auth0_rate_limit_policy.per_app');
    expect(args).not.toContain('auth0_rate_limit_policy.per_app[1]');
  });

  it('names a missing file', async () => {
    const run = await cli('export', 'tenant', '--from-terraform', 'missing.tfstate');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--from-terraform missing.tfstate: no such file');
  });
});

describe('export --from-deploy-cli', () => {
  const YAML_EXPORT = resolve('test/fixtures/peers/deploy-cli/tenant.yaml');
  const DIRECTORY_EXPORT = resolve('test/fixtures/peers/deploy-cli/directory');
  const ACTION_ID = 'a1b2c3d4-0000-4000-8000-00000000cafe';

  /** The tenant both Deploy CLI fixtures describe, its Action among others (the seed the docs use too). */
  function seedDeployCliTenant(): void {
    emulator.replaceState(
      JSON.parse(readFileSync('test/fixtures/peers/deploy-cli/emulator-seed.json', 'utf8')) as unknown,
    );
  }

  it.each([
    ['YAML file', YAML_EXPORT],
    ['directory', DIRECTORY_EXPORT],
  ])(
    'API profile full, its %s: Action names and ids from the tenant, and the next plan is empty',
    async (_form, path) => {
      seedDeployCliTenant();
      const exported = await cli('export', 'tenant', '--from-deploy-cli', path, ...api());
      expect(exported.stderr).toBe('');
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(
        /Exported 3 rate limit policies(, | and )1 token exchange profile[ ,\n]/,
      );
      expect(exported.stdout).toMatch(/skipped 3:\n/);
      expect(exported.stdout).toMatch(/^ {2}actions: an asset type tenantform does not manage$/m);
      expect(exported.stdout).toContain('Recorded 4 resources');
      expect(exported.stdout).toContain('with the ids found on the tenant');
      expect(exported.stdout).toContain(
        'add rateLimitPolicies and tokenExchangeProfiles to its AUTH0_EXCLUDED',
      );
      const profiles = readFileSync(join(dir, 'tenant', 'token-exchange-profiles.yaml'), 'utf8');
      expect(profiles).toContain(`action_id: ${ACTION_ID}`);

      const { state } = await planIsEmpty();
      expect(state.resources.every((r) => r.id !== null)).toBe(true);
      for (const text of [exported.stdout, ...filesBelow(join(dir, 'tenant'))])
        expect(text).not.toContain('deploy-fixture-SECRET');
    },
  );

  it('API profile spec: says which profiles need an Action id, and writes nothing', async () => {
    const run = await cli(
      'export',
      'tenant',
      '--from-deploy-cli',
      YAML_EXPORT,
      '--base-url',
      emulator.baseUrl,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /tenant\.yaml:\d+:\d+: tokenExchangeProfiles\[0\] names its Action "partner-token-check" by name, and the spec API profile cannot look Action ids up: pass --action-id 'partner-token-check=<id>'/,
    );
    expect(run.stderr).toContain('Nothing was written.');
    expect(existsSync(join(dir, 'tenant'))).toBe(false);
    expect(emulator.requestCount()).toBe(0);
  });

  it('API profile spec with --action-id: recorded without ids, and says how to attach them', async () => {
    const run = await cli(
      'export',
      'tenant',
      '--from-deploy-cli',
      YAML_EXPORT,
      '--action-id',
      `partner-token-check=${ACTION_ID}`,
      '--base-url',
      emulator.baseUrl,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(emulator.requestCount()).toBe(0);
    expect(run.stdout).toContain('4 resources are recorded without an id');
    expect(run.stdout).toMatch(/tenantform import 'rate_limit_policy\[.*\]' <id>/);
    const plan = await cli('plan', 'tenant', '--detailed-exitcode', '--base-url', emulator.baseUrl);
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    const state = JSON.parse(readFileSync(stateFile(), 'utf8')) as {
      resources: { id: string | null; adopted?: boolean }[];
    };
    expect(state.resources.every((r) => r.id === null && r.adopted === true)).toBe(true);
  });

  it('an export with none of the asset types tenantform manages is an error naming them', async () => {
    writeFileSync(join(dir, 'tenant.yaml'), 'tenant:\n  friendly_name: Example\n');
    const run = await cli(
      'export',
      'tenant',
      '--from-deploy-cli',
      'tenant.yaml',
      '--base-url',
      emulator.baseUrl,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'tenant.yaml holds no rateLimitPolicies or tokenExchangeProfiles; nothing was written',
    );
    expect(existsSync(join(dir, 'tenant'))).toBe(false);
    expect(emulator.requestCount()).toBe(0);
  });

  it('API profile full: a resource the tenant lacks is written but not recorded, and said', async () => {
    seedDeployCliTenant();
    const snapshot = emulator.snapshot();
    emulator.replaceState({ ...snapshot, rateLimitPolicies: snapshot.rateLimitPolicies.slice(1) });
    const run = await cli('export', 'tenant', '--from-deploy-cli', YAML_EXPORT, ...api());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Not on the tenant, so not recorded (the next apply creates it): rateLimitPolicies[0].',
    );
    const plan = await cli('plan', 'tenant', ...api());
    expect(plan.stdout).toContain('1 to create');
  });
});
