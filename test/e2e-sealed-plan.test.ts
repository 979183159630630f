/**
 * Issue 29, items 1 to 3, end to end against the emulator: a saved plan is
 * sealed with its state's plan key, and any edit made after plan --out (the
 * ones the issue found applied: an update's `after`, a permission grant for
 * another user, changes dropped or added with the summary adjusted, a no-op
 * turned into a delete, `state_location` pointed at a copy, `api` spec →
 * full, `target`) is refused by apply and show with one line, before anything
 * is sent. A target is never taken from the plan alone, and credentials go
 * to no host but a confirmed one: checked at the TCP level, nothing at all
 * reaches the host an edited plan names.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { defaultStateFile } from './helpers/e2e.js';
import { runCli, tempDir } from './helpers/cli.js';

const policy = (selector: string, limit = 100) =>
  `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration: { action: block, limit: ${limit} }\n`;
const permission = (user: string) =>
  `  - user_id: "${user}"\n    permissions:\n      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }\n`;

interface PlanChange {
  address: string;
  kind: string;
  identity: string[];
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  id: string | null;
  adopted: boolean;
  reason: string;
  source: unknown;
}
type PlanFile = Record<string, unknown> & { changes: PlanChange[]; summary: Record<string, number> };

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

const statePath = () => defaultStateFile(join(dir, 'tenant'), emulator.baseUrl);
const planPath = () => join(dir, 'p.tfplan');
const writeConfig = (text: string) => writeFileSync(join(dir, 'tenant', 'tenant.yaml'), text);
const readPlan = () => JSON.parse(readFileSync(planPath(), 'utf8')) as PlanFile;
const writePlan = (plan: PlanFile) => writeFileSync(planPath(), JSON.stringify(plan, null, 2));

/**
 * The state a plan file names (null when it names none readable): a saved
 * plan is applied only to the state the command names, and these tests run in
 * `dir`, whose default state is not tenant's, so they name it with --state.
 */
function plannedState(): string | null {
  try {
    const path = (JSON.parse(readFileSync(planPath(), 'utf8')) as { state_location?: { path?: unknown } })
      .state_location?.path;
    return typeof path === 'string' ? path : null;
  } catch {
    return null;
  }
}

/** `args` with --state naming the plan's state, for `apply p.tfplan` without one. */
function naming(args: string[]): string[] {
  const state =
    args[0] === 'apply' && args[1] === 'p.tfplan' && !args.includes('--state') ? plannedState() : null;
  return state === null ? args : [...args, '--state', state];
}

function cli(args: string[], env: Record<string, string> = {}) {
  return runCli(naming(args), { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token, ...env } });
}

/** Applies a, b and c and alice's permission; then changes a, drops c, and saves that plan. */
async function savedPlan(): Promise<void> {
  writeConfig(
    `rate_limit_policies:\n${policy('client_id:a')}${policy('client_id:b')}${policy('client_id:c')}user_permissions:\n${permission('auth0|alice')}`,
  );
  const first = await cli(['apply', 'tenant', '--auto-approve', '--base-url', emulator.baseUrl]);
  expect(first.code, first.stderr).toBe(0);
  writeConfig(
    `rate_limit_policies:\n${policy('client_id:a', 50)}${policy('client_id:b')}user_permissions:\n${permission('auth0|alice')}`,
  );
  const saved = await cli(['plan', 'tenant', '--out', 'p.tfplan', '--base-url', emulator.baseUrl]);
  expect(saved.code, saved.stderr).toBe(0);
}

const find = (plan: PlanFile, fragment: string) => plan.changes.find((c) => c.address.includes(fragment))!;

/** Moves one change of `from` to `to` in the summary, as an editor covering their tracks would. */
function recount(plan: PlanFile, from: string | null, to: string | null): void {
  if (from) plan.summary[from] = plan.summary[from]! - 1;
  if (to) plan.summary[to] = (plan.summary[to] ?? 0) + 1;
}

const EDITS: [string, (plan: PlanFile) => void][] = [
  [
    "an update's after, to block with limit 0",
    (plan) => (find(plan, 'client_id:a').after!.configuration = { action: 'block', limit: 0 }),
  ],
  [
    'a permission grant for another user added, summary adjusted',
    (plan) => {
      const grant = structuredClone(find(plan, 'auth0|alice'));
      grant.address = grant.address.replace('auth0|alice', 'auth0|mallory');
      grant.identity[0] = 'auth0|mallory';
      grant.after!.user_id = 'auth0|mallory';
      Object.assign(grant, { action: 'create', before: null });
      plan.changes.push(grant);
      recount(plan, null, 'create');
    },
  ],
  [
    'the delete dropped, summary adjusted',
    (plan) => {
      plan.changes = plan.changes.filter((c) => !c.address.includes('client_id:c'));
      recount(plan, 'delete', null);
    },
  ],
  [
    'a no-op turned into a delete, summary adjusted',
    (plan) => {
      Object.assign(find(plan, 'client_id:b'), { action: 'delete', after: null });
      recount(plan, 'no_op', 'delete');
    },
  ],
  ['api spec turned into full', (plan) => (plan.api = 'full')],
  [
    'state_location pointed at a copy of the state (key and all)',
    (plan) => {
      cpSync(dirname(statePath()), join(dir, 'copy'), { recursive: true });
      plan.state_location = { backend: 'file', path: join(dir, 'copy', 'state.json') };
    },
  ],
];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-sealed-'));
  mkdirSync(join(dir, 'tenant'));
  emulator = await startEmulator();
});
afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('a saved plan edited after plan --out', () => {
  it.each(EDITS)('is refused by apply and show, with one line and nothing sent: %s', async (_what, edit) => {
    await savedPlan();
    const plan = readPlan();
    edit(plan);
    writePlan(plan);
    const state = readFileSync(statePath(), 'utf8');
    const sent = emulator.requestCount();

    const apply = await cli(['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl]);
    const show = await cli(['show', 'p.tfplan']);

    for (const run of [apply, show]) {
      expect(run.code).toBe(4);
      expect(run.stderr).toBe(
        'Error: p.tfplan was changed after tenantform plan --out sealed it: its seal does not match its content. ' +
          'Nothing was sent; a saved plan is applied only as it was written. Make the plan again with tenantform plan --out.\n',
      );
      expect(run.stdout).toBe('');
    }
    expect(emulator.requestCount()).toBe(sent);
    expect(readFileSync(statePath(), 'utf8')).toBe(state);
    expect(existsSync(`${statePath()}.lock`)).toBe(false);
  });

  it('is applied as written when nobody edited it', async () => {
    await savedPlan();
    const show = await cli(['show', 'p.tfplan']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('Plan: 0 to create, 1 to replace, 1 to delete');
    const run = await cli(['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.code, run.stderr).toBe(0);
    expect(
      emulator
        .snapshot()
        .rateLimitPolicies.map((p) => p.consumer_selector)
        .sort(),
    ).toEqual(['client_id:a', 'client_id:b']);
  });

  it('refuses a plan saved by an older tenantform, without a seal, saying to make it again', async () => {
    await savedPlan();
    const plan = readPlan();
    delete plan.seal;
    plan.format_version = 3;
    writePlan(plan);
    const run = await cli(['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /^Error: p\.tfplan has plan format version 3 \(made by tenantform .*\), from before/,
    );
    expect(run.stderr).toContain('Make the plan again with this tenantform (tenantform plan --out).');
  });

  it('cannot be checked once the plan key is gone, and apply then makes no new one', async () => {
    await savedPlan();
    const key = `${statePath()}.key`;
    writeFileSync(key, ''); // emptied, then removed: neither is a key
    const damaged = await cli(['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain(`the plan key ${key} is damaged`);
    const { unlinkSync } = await import('node:fs');
    unlinkSync(key);
    const missing = await cli(['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('cannot be verified: the state it names has no plan key');
    expect(existsSync(key)).toBe(false);
  });
});

describe('the other refusals of a saved plan that docs/plans.md lists', () => {
  // Each exits 4 from apply and from show, with one line, having sent nothing.
  const CASES: [string, () => Promise<void> | void, RegExp][] = [
    [
      'text that is not JSON',
      () => writeFileSync(planPath(), '{"format_version": 4, "changes": ['),
      /is not a tenantform plan: it is not valid JSON/,
    ],
    [
      'no seal (plan --format json output, or the seal removed)',
      () => {
        const plan = readPlan();
        delete plan.seal;
        writePlan(plan);
      },
      /has no seal, so nothing shows it is what tenantform plan --out wrote/,
    ],
    [
      'a seal that tenantform does not write',
      () => writePlan({ ...readPlan(), seal: 'trust me' }),
      /has a seal that is not one tenantform writes/,
    ],
    [
      'an unknown format version',
      () => writePlan({ ...readPlan(), format_version: 99 }),
      /has plan format version 99 .*, but this tenantform reads format version 4 only/,
    ],
    [
      'no state location',
      () => {
        const plan = readPlan();
        delete plan.state_location;
        writePlan(plan);
      },
      /does not say which state it was made from/,
    ],
    [
      'sealed with a key its state no longer has (the key replaced)',
      async () => {
        const { unlinkSync } = await import('node:fs');
        unlinkSync(`${statePath()}.key`);
        const again = await cli(['plan', 'tenant', '--out', 'q.tfplan', '--base-url', emulator.baseUrl]);
        expect(again.code, again.stderr).toBe(0);
      },
      /was sealed with another key than the plan key of its state/,
    ],
  ];

  it.each(CASES)('%s', async (_what, damage, message) => {
    await savedPlan();
    await damage();
    const before = emulator.requestCount();
    for (const args of [
      ['show', 'p.tfplan'],
      ['apply', 'p.tfplan', '--auto-approve', '--base-url', emulator.baseUrl],
    ]) {
      const run = await cli(args);
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(4);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(emulator.requestCount()).toBe(before);
  });
});

describe('the target of a saved plan', () => {
  let other: Server;
  let connections = 0;
  let otherUrl: string;

  beforeEach(async () => {
    connections = 0;
    other = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const address = other.address();
    otherUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v2`;
  });
  afterEach(() => new Promise<void>((resolve) => other.close(() => resolve())));

  const TOKEN = { TENANTFORM_TOKEN: 'the-token' };
  const CLIENT = { TENANTFORM_CLIENT_ID: 'the-client', TENANTFORM_CLIENT_SECRET: 'the-secret' };

  it.each([
    ['a bearer token', TOKEN],
    ['client credentials', CLIENT],
  ])('an edited target receives nothing at all (%s), with no target given', async (_what, credentials) => {
    await savedPlan();
    const plan = readPlan();
    plan.target = otherUrl;
    writePlan(plan);
    const run = await runCli(naming(['apply', 'p.tfplan', '--auto-approve']), { cwd: dir, env: credentials });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('was changed after tenantform plan --out sealed it');
    expect(connections).toBe(0);
  });

  it('is not taken from the plan alone: with no target given, apply says how to give one and sends nothing', async () => {
    writeConfig(`rate_limit_policies:\n${policy('client_id:a')}`);
    const env = { TENANTFORM_BASE_URL: otherUrl };
    expect((await runCli(['plan', 'tenant', '--out', 'p.tfplan'], { cwd: dir, env })).code).toBe(0);
    expect(readPlan().target).toBe(otherUrl);

    for (const credentials of [TOKEN, CLIENT]) {
      const run = await runCli(naming(['apply', 'p.tfplan', '--auto-approve']), {
        cwd: dir,
        env: credentials,
      });
      expect(run.code).toBe(4);
      expect(run.stderr).toBe(
        `Error: p.tfplan was made for the API at ${otherUrl}, but nothing on this command line or in its ` +
          `environment names that target, and apply sends credentials only to a target you name: pass --base-url ${otherUrl} ` +
          '(or --domain), set TENANTFORM_BASE_URL or TENANTFORM_DOMAIN, or give --env NAME for an environment of ' +
          './tenantform.yaml with that target. Nothing was sent.\n',
      );
    }
    expect(connections).toBe(0);
  });
});
