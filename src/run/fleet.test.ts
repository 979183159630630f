/**
 * runFleet: a multi-environment request in, each environment run on its own
 * and told to its own view (a fake one here), the result out: each
 * environment's status, outcome, figures, target and time in the request's
 * order, and what decides the exit code. Plans against files in a temporary
 * directory; applies against the emulator over 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { startEmulator, type EmulatorHandle } from '../emulator/index.js';
import { bounded, runFleet, type EnvironmentOutcome, type FleetView } from './fleet.js';
import type { ApplyRequest, ConfigInput, FleetEnvironment, PlanRequest, RunIO } from './requests.js';
import type { RunEvent } from './view.js';

describe('bounded', () => {
  it('runs at most `limit` at once and keeps the order of results', async () => {
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const done = bounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return n * 10;
    });
    // Release one waiting task at a time until all have run.
    while (gates.length > 0 || running > 0) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(peak).toBe(3);
  });
});

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 10 }
`;

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };
beforeAll(async () => {
  emulator = await startEmulator({ api: 'spec' });
});
afterAll(() => emulator.stop());
beforeEach(() => {
  work = tempDir('tenantform-run-fleet-');
  for (const [name, text] of [
    ['policy', POLICY],
    ['empty', '{}\n'],
  ]) {
    mkdirSync(join(work.dir, name!));
    writeFileSync(join(work.dir, name!, 'p.yaml'), text!);
  }
  emulator.reset();
});
afterEach(() => work.cleanup());

/** An environment of tenantform.yaml reading `dir`, its target `baseUrl` when given. */
function input(name: string, dir: string, baseUrl?: string): ConfigInput {
  const target = baseUrl ? { target: { baseUrl } } : {};
  return {
    env: name,
    paths: [dir],
    varFiles: [],
    environment: { name, paths: [dir], varFiles: [], ...target },
  };
}

const connection = (baseUrl?: string) => ({
  named: {},
  target: baseUrl ? { baseUrl } : {},
  debug: false,
  pacing: {},
  reassignTenant: false,
});
const selection = { targets: [], replace: [], destroy: false };

function plan(name: string, dir: string, baseUrl?: string): FleetEnvironment {
  const request: PlanRequest = {
    input: input(name, dir, baseUrl),
    vars: {},
    state: { file: `${name}.json` },
    connection: connection(baseUrl),
    api: 'spec',
    selection,
    refresh: false,
    strict: false,
    detailedExitcode: true,
    output: { format: 'text', verbose: false },
  };
  return { name, input: request.input, command: 'plan', request };
}

function apply(name: string, dir: string, baseUrl?: string): FleetEnvironment {
  const request: ApplyRequest = {
    command: 'apply',
    source: { kind: 'config', input: input(name, dir, baseUrl), vars: {} },
    state: { file: `${name}.json` },
    lockTimeoutMs: 0,
    connection: connection(baseUrl),
    api: 'spec',
    selection,
    refresh: false,
    strict: false,
    skipBlocked: false,
    autoApprove: true,
    parallelism: 1,
    batchSize: 100,
    output: { json: false, verbose: false },
  };
  return { name, input: request.source.input, command: 'apply', request };
}

/** A view per environment recording what its run tells it, and how it was closed. */
function fakeViews(env: RunIO['env'] = {}) {
  const told = new Map<string, string[]>();
  const closed = new Map<string, EnvironmentOutcome>();
  const view: FleetView = {
    open(environment) {
      const events: string[] = [];
      told.set(environment.name, events);
      return {
        io: { env, cwd: work.dir, notice: () => {} },
        view: {
          event: (event: RunEvent) => void events.push(event.kind),
          showPlan: () => Promise.resolve(void events.push('showPlan')),
          confirm: () => Promise.reject(new Error('auto-approved: nothing is asked')),
        },
        close: (outcome) => void closed.set(environment.name, outcome),
      };
    },
  };
  return { view, told, closed };
}

/** The token of `tenant`, and its host confirmed (tenantform.yaml names it). */
const tenantEnv = (tenant: EmulatorHandle) => ({
  TENANTFORM_TOKEN: tenant.token,
  TENANTFORM_ALLOWED_HOSTS: new URL(tenant.baseUrl).host,
});

/** A clock that moves 5 ms each time it is read. */
const stepping = () => {
  let t = 0;
  return () => (t += 5);
};
const maker = () => ({ toolVersion: '0.0.0-test', now: () => new Date(0), clock: stepping() });

describe('runFleet', () => {
  it('plans each environment on its own, in the request order, one refused not stopping the others', async () => {
    const { view, told, closed } = fakeViews();
    const refused: FleetEnvironment = {
      name: 'c',
      input: input('c', 'empty'),
      command: 'plan',
      problem: new Error('refused'),
    };
    const request = {
      command: 'plan' as const,
      environments: [plan('a', 'policy', 'https://a.example/api/v2'), plan('b', 'empty'), refused],
      parallelism: 2,
    };
    const result = await runFleet(request, view, maker());
    expect(result.environments.map((e) => [e.name, e.status])).toEqual([
      ['a', 'changes'],
      ['b', 'ok'],
      ['c', 'failed'],
    ]);
    expect(result).toMatchObject({ failed: true, changes: true });
    const [a, b, c] = result.environments;
    expect(a!.figures).toEqual({ state: expect.stringContaining('a.json'), changes: 1 });
    expect(a!.target).toEqual({ kind: 'set', baseUrl: 'https://a.example/api/v2', fromVariables: false });
    expect(b!.target).toEqual({ kind: 'unset' });
    expect(c!.outcome).toEqual({ kind: 'error', error: new Error('refused') });
    expect(told.get('a')).toEqual(['where', 'no-state', 'figures', 'showPlan']);
    expect(told.get('c')).toEqual([]);
    expect([...closed.keys()].sort()).toEqual(['a', 'b', 'c']);
    expect(closed.get('a')).toMatchObject({ kind: 'plan', result: { status: 'planned', hasChanges: true } });
    // Each environment is timed by the clock given: read once at its start, once at its end.
    for (const e of result.environments) expect(e.ms).toBeGreaterThan(0);
  });

  it('says no failure and no changes when every plan is without changes', async () => {
    const { view } = fakeViews();
    const request = {
      command: 'plan' as const,
      environments: [plan('a', 'empty'), plan('b', 'empty')],
      parallelism: 1,
    };
    expect(await runFleet(request, view, maker())).toMatchObject({ failed: false, changes: false });
  });

  it('names the target the process environment gives a plan that names none, and one that does not resolve', async () => {
    const request = { command: 'plan' as const, environments: [plan('a', 'empty')], parallelism: 1 };
    const set = await runFleet(request, fakeViews({ TENANTFORM_DOMAIN: 't.example' }).view, maker());
    expect(set.environments[0]!.target).toEqual({
      kind: 'set',
      baseUrl: 'https://t.example/api/v2',
      fromVariables: true,
    });
    const bad = await runFleet(request, fakeViews({ TENANTFORM_DOMAIN: 'bad domain' }).view, maker());
    expect(bad.environments[0]!.target).toEqual({ kind: 'invalid' });
  });

  it('applies each environment to its tenant, an error in one its failure, the requests counted', async () => {
    const { view, closed } = fakeViews(tenantEnv(emulator));
    const request = {
      command: 'apply' as const,
      environments: [apply('ok', 'policy', emulator.baseUrl), apply('none', 'policy')],
      parallelism: 2,
    };
    const result = await runFleet(request, view, maker());
    const [ok, none] = result.environments;
    expect(ok).toMatchObject({ status: 'ok', target: { kind: 'set', baseUrl: emulator.baseUrl } });
    expect(ok!.figures).toMatchObject({ changes: 1, done: 1, failed: 0, target: emulator.baseUrl });
    expect(ok!.figures.requests).toBeGreaterThan(0);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(1);
    // No target anywhere: the apply throws, and only that environment fails.
    expect(none).toMatchObject({ status: 'failed', outcome: { kind: 'error' }, target: { kind: 'unset' } });
    expect(closed.get('none')).toMatchObject({ kind: 'error' });
    expect(result).toMatchObject({ failed: true, changes: false });
  });

  it('counts an apply that left operations undone as failed', async () => {
    const failing = await startEmulator({ api: 'spec', faults: { error: 1 } });
    try {
      const { view } = fakeViews(tenantEnv(failing));
      const env = apply('a', 'policy', failing.baseUrl);
      if (env.command === 'apply' && 'request' in env)
        env.request.connection.pacing = { retry: { maxAttempts: 1 } };
      const result = await runFleet({ command: 'apply', environments: [env], parallelism: 1 }, view, maker());
      expect(result.environments[0]).toMatchObject({ status: 'failed', outcome: { kind: 'apply' } });
      expect(result.environments[0]!.figures).toMatchObject({ done: 0, failed: 1 });
    } finally {
      await failing.stop();
    }
  });
});
