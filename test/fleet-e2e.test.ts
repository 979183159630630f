import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTenants, type TenantHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const policy = (selector: string, limit: number) => `
rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: { action: block, limit: ${limit} }
`;

let tenants: TenantHandle[];
let dir: string;
let cleanup: () => void;

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Three environments on three emulated tenants: a token, client credentials, and a token again. */
function project(extra = ''): void {
  const [dev, staging, prod] = tenants;
  write('common/base.yaml', policy('default', 100));
  write('dev/dev.yaml', policy('client_id:dev-app', 10));
  write('staging/staging.yaml', policy('client_id:staging-app', 20));
  write('prod/prod.yaml', policy('client_id:prod-app', 30));
  write(
    'tenantform.yaml',
    `environments:
  dev:
    paths: [common, dev]
    base_url: ${dev!.baseUrl}
    credentials: { token: DEV_TOKEN }
  staging:
    paths: [common, staging]
    base_url: ${staging!.baseUrl}
    credentials: { client_id: STAGING_ID, client_secret: STAGING_SECRET }
    state: { path: states/staging.json }
  prod:
    paths: [common, prod]
    base_url: ${prod!.baseUrl}
    credentials: { token: PROD_TOKEN }
${extra}`,
  );
}

const env = () => ({
  // The tenants tenantform.yaml names, confirmed outside it (as CI does beside the secrets).
  TENANTFORM_ALLOWED_HOSTS: tenants.map((t) => new URL(t.baseUrl).host).join(','),
  DEV_TOKEN: tenants[0]!.token,
  STAGING_ID: tenants[1]!.clientId,
  STAGING_SECRET: tenants[1]!.clientSecret,
  PROD_TOKEN: tenants[2]!.token,
});
const cli = (args: string[], extraEnv: Record<string, string | undefined> = {}) =>
  runCli(args, { cwd: dir, env: { ...env(), ...extraEnv } });
const selectors = (t: TenantHandle) =>
  t
    .snapshot()
    .rateLimitPolicies.map((p) => p.consumer_selector)
    .sort();

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-fleet-'));
  tenants = await startTenants(['dev', 'staging', 'prod']);
});
afterEach(async () => {
  await Promise.all(tenants.map((t) => t.stop()));
  cleanup();
});

describe('apply --all-envs', () => {
  it('applies every environment to its own tenant with its own credentials and state', async () => {
    project();
    const run = await cli(['apply', '.', '--all-envs', '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(selectors(tenants[0]!)).toEqual(['client_id:dev-app', 'default']);
    expect(selectors(tenants[1]!)).toEqual(['client_id:staging-app', 'default']);
    expect(selectors(tenants[2]!)).toEqual(['client_id:prod-app', 'default']);
    expect(existsSync(join(dir, 'dev', '.tenantform', 'env-dev', 'state.json'))).toBe(true);
    expect(existsSync(join(dir, 'states', 'staging.json'))).toBe(true);
    // Progress lines carry the environment; the closing table has one row per environment.
    expect(run.stdout).toMatch(/^\[staging\] rate_limit_policy\[.*"default"\]: created$/m);
    expect(run.stdout).toMatch(
      new RegExp(
        `^dev +${tenants[0]!.baseUrl.replace(/[.]/g, '\\.')} +applied +2/2 +2 +0 +\\d+\\.\\ds$`,
        'm',
      ),
    );
    // staging fetched a token first: 3 requests.
    expect(run.stdout).toMatch(/^staging +\S+ +applied +2\/2 +3 +0 /m);
    expect(run.stdout).toContain('3 environments applied.');

    const again = await cli(['plan', '.', '--all-envs', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout.match(/no changes/g)).toHaveLength(3);
  });

  it('goes on with the other environments when one fails, and exits 1', async () => {
    project();
    const run = await cli(['apply', '.', '--env', 'dev', '--env', 'prod', '--auto-approve'], {
      PROD_TOKEN: tenants[0]!.token, // dev's token: prod's tenant refuses it
    });
    expect(run.code).toBe(1);
    expect(selectors(tenants[0]!)).toEqual(['client_id:dev-app', 'default']);
    expect(selectors(tenants[2]!)).toEqual([]);
    expect(run.stderr).toMatch(/^\[prod\] .*401/m);
    expect(run.stdout).toMatch(/^dev +\S+ +applied /m);
    expect(run.stdout).toMatch(/^prod +\S+ +failed +0\/2 /m);
    expect(run.stdout).toContain('2 environments applied, 1 failed.');
    expect(selectors(tenants[1]!)).toEqual([]); // not asked for
  });

  it('names a credentials variable that is not set, never a value, and sends nothing for that tenant', async () => {
    project();
    const run = await cli(['apply', '.', '--all-envs', '--auto-approve'], { STAGING_SECRET: undefined });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '[staging] Error: environment staging: credentials.client_secret names the environment variable STAGING_SECRET, which is not set',
    );
    expect(tenants[1]!.requestCount()).toBe(0);
    expect(selectors(tenants[2]!)).toHaveLength(2);
  });

  it('refuses flags that name one state or tenant, before any request', async () => {
    project();
    for (const flag of [
      ['--state', 'x.json'],
      ['--base-url', tenants[0]!.baseUrl],
      ['--workspace', 'w'],
    ]) {
      const run = await cli(['apply', '.', '--all-envs', '--auto-approve', ...flag]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/cannot serve several environments/);
    }
    expect(tenants.map((t) => t.requestCount())).toEqual([0, 0, 0]);
  });

  it('refuses --json, which applies one environment at a time, before any environment runs', async () => {
    project();
    const run = await cli(['apply', '.', '--env', 'dev', '--env', 'prod', '--auto-approve', '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: --json applies one environment at a time: give one --env\n');
    const unapproved = await cli(['apply', '.', '--all-envs', '--json']);
    expect(unapproved.stderr).toContain('--json needs --auto-approve');
    expect(tenants.map((t) => t.requestCount())).toEqual([0, 0, 0]);
  });
});

describe('plan over several environments', () => {
  it('aggregates --detailed-exitcode: 2 when any environment has changes', async () => {
    project();
    await cli(['apply', '.', '--env', 'dev', '--auto-approve']);
    const some = await cli(['plan', '.', '--all-envs', '--detailed-exitcode']);
    expect(some.code).toBe(2);
    expect(some.stdout).toMatch(/^== Environment dev ==$/m);
    expect(some.stdout).toMatch(/^dev +\S+ +\S+ +no changes /m);
    expect(some.stdout).toMatch(/^prod +\S+ +\S+ +2 to change /m);
    expect((await cli(['plan', '.', '--env', 'dev', '--detailed-exitcode'])).code).toBe(0);
    expect((await cli(['plan', '.', '--all-envs'])).code).toBe(0);
  });

  it('exits 1 when any environment fails, whatever the others', async () => {
    project();
    write('prod/broken.yaml', 'rate_limit_policies: [ {resource: nope} ]\n');
    const run = await cli(['plan', '.', '--all-envs', '--detailed-exitcode']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^\[prod\] +prod\/broken\.yaml:1:/m);
    expect(run.stdout).toMatch(/^dev +\S+ +\S+ +2 to change /m);
    expect(run.stdout).toMatch(/^prod +\S+ +\S+ +failed /m);
  });

  it('prints JSON per environment, with each plan and its errors', async () => {
    project();
    write('prod/broken.yaml', 'rate_limit_policies: [ {resource: nope} ]\n');
    const run = await cli(['plan', '.', '--all-envs', '--format', 'json']);
    const body = JSON.parse(run.stdout) as {
      environments: {
        environment: string;
        result: string;
        plan: { changes: unknown[] } | null;
        errors: string | null;
      }[];
    };
    expect(body.environments.map((e) => [e.environment, e.result])).toEqual([
      ['dev', 'changes'],
      ['staging', 'changes'],
      ['prod', 'failed'],
    ]);
    expect(body.environments[0]!.plan!.changes).toHaveLength(2);
    expect(body.environments[2]!.errors).toMatch(/broken\.yaml:1:/);
  });

  it('--format terraform-json gives each environment its Terraform-shaped plan, in one JSON document', async () => {
    project();
    const run = await cli(['plan', '.', '--env', 'dev', '--env', 'prod', '--format', 'terraform-json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as {
      environments: { environment: string; plan: { format_version: string; resource_changes: unknown[] } }[];
    };
    expect(body.environments.map((e) => [e.environment, e.plan.format_version])).toEqual([
      ['dev', '1.2'],
      ['prod', '1.2'],
    ]);
    expect(body.environments[0]!.plan.resource_changes).toHaveLength(2);
  });

  it('renders one Markdown comment with a section per environment', async () => {
    project();
    const run = await cli(['plan', '.', '--env', 'dev', '--env', 'prod', '--format', 'markdown']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^## tenantform plan: 2 environments$/m);
    expect(run.stdout).toMatch(/^\| `dev` \| .* \| 2 to change \|$/m);
    expect(run.stdout.indexOf('## Environment `dev`')).toBeLessThan(
      run.stdout.indexOf('## Environment `prod`'),
    );
    expect(run.stdout).not.toContain('## Environment `staging`');
  });
});

describe('one environment from tenantform.yaml', () => {
  it('uses its target, credentials and state, output as before', async () => {
    project();
    const run = await cli(['apply', '.', '--env', 'staging', '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/^\[staging\]/m);
    expect(run.stdout).not.toContain('Environment  Target');
    expect(selectors(tenants[1]!)).toEqual(['client_id:staging-app', 'default']);
    const state = JSON.parse(readFileSync(join(dir, 'states', 'staging.json'), 'utf8')) as {
      resources: unknown[];
    };
    expect(state.resources).toHaveLength(2);
  });
});
