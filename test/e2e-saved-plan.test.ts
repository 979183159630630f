/**
 * Saved plans that cannot lie (issue 16, defects 1 and 2; issue 29, items 1
 * to 3), end to end against the emulator: an edited plan file is refused by
 * its seal before anything in it is used; an edit sealed again by someone
 * who can read the state's key is still checked against the state; a plan is
 * applied to the state it was made from, wherever apply runs, and only to a
 * target the command line, the environment or tenantform.yaml confirms.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { sealOf } from '../src/plan/plan-seal.js';
import { defaultStateFile } from './helpers/e2e.js';
import { runCli, tempDir } from './helpers/cli.js';

const policy = (selector: string, limit = 100) =>
  `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration: { action: block, limit: ${limit} }\n`;
const BOTH = `rate_limit_policies:\n${policy('client_id:keep-me')}${policy('client_id:delete-me')}`;
const KEEP_ONLY = `rate_limit_policies:\n${policy('client_id:keep-me')}`;
const PERMISSIONS =
  'user_permissions:\n  - user_id: "auth0|bob"\n    permissions:\n      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }\n';

const PROFILE =
  'token_exchange_profiles:\n  - name: Partner SSO\n    subject_token_type: urn:partner:legacy-token\n    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c\n    type: custom_authentication\n';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

interface SavedChange {
  address: string;
  action: string;
  id: string | null;
  after: Record<string, unknown> | null;
}
type SavedPlanFile = { changes: SavedChange[] } & Record<string, unknown>;

const statePath = () => defaultStateFile(join(dir, 'tenant'), emulator.baseUrl);
const readState = () =>
  JSON.parse(readFileSync(statePath(), 'utf8')) as { serial: number; resources: { address: string }[] };
const policies = () =>
  emulator
    .snapshot()
    .rateLimitPolicies.map((p) => p.consumer_selector)
    .sort();
const idOf = (selector: string) =>
  emulator.snapshot().rateLimitPolicies.find((p) => p.consumer_selector === selector)!.id;

/**
 * The CLI in `dir`. A saved plan is applied only to the state the command
 * names (or the default one of the current directory, here `dir`'s, not
 * tenant's): `apply FILE.plan` is given the state the plan names with --state
 * unless the test names a state itself.
 */
function cli(args: string[], cwd = dir) {
  const namesState = args.some((a) => a === '--state' || a === '--env' || a === '--backend');
  const file = args[1] !== undefined && isAbsolute(args[1]) ? args[1] : join(cwd, args[1] ?? '');
  const stated =
    args[0] === 'apply' && file.endsWith('.plan') && !namesState
      ? [...args, '--state', plannedState(file)]
      : args;
  return runCli(stated, { cwd, env: { TENANTFORM_TOKEN: emulator.token } });
}

function writeConfig(text: string): void {
  writeFileSync(join(dir, 'tenant', 'policies.yaml'), text);
}

function editPlan(file: string, edit: (plan: SavedPlanFile) => void): void {
  const plan = JSON.parse(readFileSync(file, 'utf8')) as SavedPlanFile;
  edit(plan);
  writeFileSync(file, JSON.stringify(plan, null, 2));
}

/** The state file a saved plan names. */
const plannedState = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { state_location: { path: string } }).state_location.path;

/**
 * An edit sealed again with the state's plan key: what only someone who can
 * read the state could write. The changes are still checked against the state.
 */
function editAndReseal(file: string, edit: (plan: SavedPlanFile) => void): void {
  const key = Buffer.from(readFileSync(`${plannedState(file)}.key`, 'utf8').trim(), 'hex');
  editPlan(file, (plan) => {
    edit(plan);
    delete plan.seal;
    plan.seal = sealOf(plan, key);
  });
}

function change(plan: SavedPlanFile, fragment: string): SavedChange {
  return plan.changes.find((c) => c.address.includes(fragment))!;
}

/** Applies both policies, removes delete-me from the config and saves the plan that deletes it. */
async function planTheDelete(): Promise<string> {
  writeConfig(BOTH);
  const first = await cli(['apply', 'tenant', '--auto-approve', '--base-url', emulator.baseUrl]);
  expect(first.code).toBe(0);
  expect(policies()).toEqual(['client_id:delete-me', 'client_id:keep-me']);
  writeConfig(KEEP_ONLY);
  const saved = await cli(['plan', 'tenant', '--out', 'del.plan']);
  expect(saved.code).toBe(0);
  return join(dir, 'del.plan');
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'tenant'));
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe("a saved plan edited and sealed again with the state's key", () => {
  it("refuses a delete whose id was changed to keep-me's: nothing sent, keep-me kept, state untouched", async () => {
    const file = await planTheDelete();
    editAndReseal(file, (plan) => (change(plan, 'delete-me').id = idOf('client_id:keep-me')));
    const stateBefore = readFileSync(statePath(), 'utf8');
    const sent = emulator.requestCount();

    const run = await cli(['apply', 'del.plan', '--auto-approve', '--base-url', emulator.baseUrl]);

    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      'del.plan does not match the state it would be applied to; nothing was sent',
    );
    expect(run.stderr).toContain(
      `rate_limit_policy["oauth_authentication_api","client","client_id:delete-me"]): id "${idOf('client_id:keep-me')}" is not the id the state records for this resource (${idOf('client_id:delete-me')})`,
    );
    expect(run.stdout).not.toContain('deleted');
    expect(emulator.requestCount()).toBe(sent);
    expect(policies()).toEqual(['client_id:delete-me', 'client_id:keep-me']);
    expect(readFileSync(statePath(), 'utf8')).toBe(stateBefore);
    expect(existsSync(`${statePath()}.lock`)).toBe(false);
  });

  it.each<[string, (plan: SavedPlanFile) => void, RegExp]>([
    [
      'a consumer_selector that disagrees with the address',
      (plan) => (change(plan, 'keep-me').after!.consumer_selector = 'client_id:someone-else'),
      /after\.consumer_selector is "client_id:someone-else" but the address says "client_id:keep-me"/,
    ],
    [
      "a permission's user_id that disagrees with the address",
      (plan) => (change(plan, 'auth0|bob').after!.user_id = 'auth0|mallory'),
      /after\.user_id is "auth0\|mallory" but the address says "auth0\|bob"/,
    ],
    [
      "a profile's name shorter than the API accepts",
      (plan) => (change(plan, 'legacy-token').after!.name = 'x'),
      /after\.name: name must be at least 3 characters/,
    ],
  ])('refuses %s, sending nothing', async (_name, edit, expected) => {
    writeConfig(`${KEEP_ONLY}${PERMISSIONS}${PROFILE}`);
    expect((await cli(['plan', 'tenant', '--out', 'p.plan'])).code).toBe(0);
    editAndReseal(join(dir, 'p.plan'), edit);

    const run = await cli(['apply', 'p.plan', '--auto-approve', '--base-url', emulator.baseUrl]);

    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(expected);
    expect(emulator.requestCount()).toBe(0);
    expect(existsSync(plannedState(join(dir, 'p.plan')))).toBe(false);
  });

  it('refuses a limit beyond the API bounds on a replace, sending nothing', async () => {
    const file = await planTheDelete();
    editAndReseal(file, (plan) => {
      const keep = change(plan, 'keep-me');
      keep.after = { ...keep.after, configuration: { action: 'block', limit: 1_000_000 } };
    });
    const sent = emulator.requestCount();
    const run = await cli(['apply', 'del.plan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/after\.configuration\.limit: limit must be at most 10000/);
    expect(emulator.requestCount()).toBe(sent);
  });

  it('applies the unedited plan: delete-me deleted, keep-me kept', async () => {
    await planTheDelete();
    const run = await cli(['apply', 'del.plan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(policies()).toEqual(['client_id:keep-me']);
    expect(readState().resources.map((r) => r.address)).toEqual([
      'rate_limit_policy["oauth_authentication_api","client","client_id:keep-me"]',
    ]);
  });
});

describe('a saved plan and its state location', () => {
  it('records the absolute state location and the target; from any directory, --state naming it applies it', async () => {
    const file = await planTheDelete();
    const plan = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(plan.format_version).toBe(4);
    expect(plan.state_location).toEqual({ backend: 'file', path: statePath() });
    expect(plan.target).toBeNull();

    mkdirSync(join(dir, 'elsewhere'));
    const run = await cli(
      ['apply', file, '--auto-approve', '--base-url', emulator.baseUrl],
      join(dir, 'elsewhere'),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
    expect(readState().resources).toHaveLength(1);
    expect(policies()).toEqual(['client_id:keep-me']);
  });

  it('is applied only to the state the command names, or the default one of the current directory: a plan naming another is refused, sending nothing', async () => {
    // A plan and its state, made elsewhere (its own key beside it), bound to the target the victim gives.
    const file = await planTheDelete();
    const sent = emulator.requestCount();
    const before = readFileSync(statePath(), 'utf8');
    const env = { TENANTFORM_TOKEN: emulator.token };
    const run = await runCli(['apply', file, '--auto-approve', '--base-url', emulator.baseUrl], {
      cwd: dir,
      env,
    });
    expect(run.code).toBe(4);
    const here = defaultStateFile(dir, emulator.baseUrl);
    expect(run.stderr).toContain(
      `was made from the state at ${statePath()}, but this apply would use ${here}: a saved plan is applied only to the state the command names`,
    );
    expect(run.stderr).toContain(`name it (--state ${statePath()})`);
    expect(emulator.requestCount()).toBe(sent);
    expect(policies()).toEqual(['client_id:delete-me', 'client_id:keep-me']);
    expect(readFileSync(statePath(), 'utf8')).toBe(before);
    expect(existsSync(join(dir, '.tenantform'))).toBe(false);

    // From the config's own directory, its default state is the plan's: applied.
    const there = await runCli(['apply', file, '--auto-approve', '--base-url', emulator.baseUrl], {
      cwd: join(dir, 'tenant'),
      env,
    });
    expect(there.stderr).toBe('');
    expect(there.code).toBe(0);
    expect(policies()).toEqual(['client_id:keep-me']);
  });

  it('refuses another --state, creating no state directory and sending nothing', async () => {
    const file = await planTheDelete();
    const sent = emulator.requestCount();
    const other = join(dir, 'other', '.tenantform', 'state.json');
    const run = await cli([
      'apply',
      file,
      '--state',
      other,
      '--auto-approve',
      '--base-url',
      emulator.baseUrl,
    ]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      `was made from the state at ${statePath()}, but this apply would use ${other}: a saved plan is applied only to the state the command names`,
    );
    expect(existsSync(join(dir, 'other'))).toBe(false);
    expect(emulator.requestCount()).toBe(sent);
  });

  it('refuses a plan whose recorded location was edited to a directory without that state, creating nothing', async () => {
    const file = await planTheDelete();
    const etc = join(dir, 'etc');
    editPlan(file, (plan) => {
      plan.config_paths = [etc];
      plan.state_location = { backend: 'file', path: join(etc, '.tenantform', 'state.json') };
    });
    const run = await cli(['apply', file, '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/cannot be verified: the state it names has no plan key/);
    expect(existsSync(etc)).toBe(false);
  });

  it('refuses another target than the one known at plan time, and one that only the plan names', async () => {
    writeConfig(KEEP_ONLY);
    const env = { TENANTFORM_TOKEN: emulator.token, TENANTFORM_BASE_URL: emulator.baseUrl };
    expect((await runCli(['plan', 'tenant', '--out', 'p.plan'], { cwd: dir, env })).code).toBe(0);
    const plan = JSON.parse(readFileSync(join(dir, 'p.plan'), 'utf8')) as Record<string, unknown>;
    expect(plan.target).toBe(emulator.baseUrl);

    const other = 'http://127.0.0.1:9/api/v2';
    const run = await cli(['apply', 'p.plan', '--auto-approve', '--base-url', other]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      `p.plan was made for the API at ${emulator.baseUrl}, but this apply would send to ${other};`,
    );
    expect(existsSync(statePath())).toBe(false);

    // Without a target of its own, apply does not take the plan's: it says how to give one.
    const unconfirmed = await cli(['apply', 'p.plan', '--auto-approve']);
    expect(unconfirmed.code).toBe(4);
    expect(unconfirmed.stderr).toContain(`pass --base-url ${emulator.baseUrl} (or --domain)`);
    expect(emulator.requestCount()).toBe(0);

    const same = await cli(['apply', 'p.plan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(policies()).toEqual(['client_id:keep-me']);
  });

  it('takes the target of the --env environment of tenantform.yaml, with its credential variables', async () => {
    writeConfig(KEEP_ONLY);
    writeFileSync(
      join(dir, 'tenantform.yaml'),
      `environments:\n  prod:\n    paths: [tenant]\n    base_url: "${emulator.baseUrl}"\n    credentials: { token: PROD_TOKEN }\n`,
    );
    const env = { PROD_TOKEN: emulator.token, TENANTFORM_ALLOWED_HOSTS: new URL(emulator.baseUrl).host };
    expect((await runCli(['plan', '--env', 'prod', '--out', 'p.plan'], { cwd: dir, env })).code).toBe(0);
    const named = ['--state', plannedState(join(dir, 'p.plan'))];
    const unconfirmed = await runCli(['apply', 'p.plan', '--auto-approve', ...named], { cwd: dir, env });
    expect(unconfirmed.code).toBe(4);
    expect(unconfirmed.stderr).toContain('or give --env NAME for an environment of ./tenantform.yaml');

    const run = await runCli(['apply', 'p.plan', '--env', 'prod', '--auto-approve'], { cwd: dir, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(policies()).toEqual(['client_id:keep-me']);
  });
});

describe('apply PLANFILE with config inputs', () => {
  beforeEach(async () => {
    writeConfig(KEEP_ONLY);
    expect((await cli(['plan', 'tenant', '--out', 'p.plan'])).code).toBe(0);
  });

  it.each([
    [
      ['apply', 'p.plan', 'tenant'],
      /^Error: p\.plan is a saved plan, so apply takes no config path besides it \(got tenant\)/,
    ],
    [
      ['apply', 'tenant', 'p.plan'],
      /^Error: p\.plan is a saved plan, so apply takes no config path besides it \(got tenant\)/,
    ],
    [
      ['apply', 'p.plan', '--var', 'X=1'],
      /^Error: --var cannot be used when applying a saved plan: p\.plan already holds/,
    ],
    [
      ['apply', 'p.plan', '--var-file', 'v.yaml', '--var', 'X=1'],
      /^Error: --var and --var-file cannot be used when applying a saved plan/,
    ],
    [['apply', 'p.plan', '--env', 'prod'], /^Error: --env prod: no tenantform\.yaml with environments in \./],
    [
      ['apply', 'p.plan', '--env', 'prod', '--env', 'dev'],
      /^Error: several --env cannot be used when applying a saved plan/,
    ],
  ])('refuses %j with one sentence', async (args, expected) => {
    const run = await cli([...args, '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(expected);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(emulator.requestCount()).toBe(0);
    expect(existsSync(plannedState(join(dir, 'p.plan')))).toBe(false);
  });
});
