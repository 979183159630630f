import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { runErrorMessage } from '../cli/run-words.js';
import { Simulation } from '../simulate/index.js';
import { RunError } from './errors.js';
import type { SimulateRequest, TenantReader } from './read-requests.js';
import type { Plan } from '../plan/types.js';
import { runPlan } from './plan.js';
import type { PlanRequest, RunIO } from './requests.js';
import type { RunView } from './view.js';
import { readLogs, runSimulate } from './simulate.js';

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-run-simulate-');
  mkdirSync(join(work.dir, 'config'));
  writeFileSync(
    join(work.dir, 'config', 'p.yaml'),
    'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 1 }\n',
  );
  const event = (ms: number) =>
    JSON.stringify({ type: 'sertft', client_id: 'web', date: new Date(ms).toISOString() });
  const t0 = Date.parse('2026-11-20T08:00:00Z');
  writeFileSync(join(work.dir, 'logs.jsonl'), [event(t0), event(t0 + 100), event(t0 + 5000)].join('\n'));
  writeFileSync(join(work.dir, 'bad.jsonl'), 'not json\n');
});
afterEach(() => work.cleanup());

const io = (): RunIO => ({ env: {}, cwd: work.dir, notice: () => {} });
const spec: TenantReader = {
  api: 'spec',
  connection: { named: {}, target: {}, debug: false, pacing: {}, reassignTenant: false },
};
const input = { env: null, paths: ['config'], varFiles: [] };

const request = (over: Partial<SimulateRequest> = {}): SimulateRequest => ({
  input,
  vars: {},
  logs: 'logs.jsonl',
  since: null,
  maxEvents: 10,
  reader: spec,
  output: { format: 'text' },
  ...over,
});

/** The RunError `run` throws. */
async function problemOf(run: Promise<unknown>): Promise<RunError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunError);
  return err as RunError;
}

describe('runSimulate', () => {
  it('returns the report and what was read, as data', async () => {
    const result = await runSimulate(request(), io());
    expect(result).toMatchObject({ kind: 'report', read: { source: 'logs.jsonl' } });
    if (result.kind === 'report') expect(result.report.policies[0]!.requests).toBe(3);
  });

  it("returns the config's problems, not an error", async () => {
    writeFileSync(join(work.dir, 'config', 'p.yaml'), 'rate_limit_policies: 3\n');
    expect((await runSimulate(request(), io())).kind).toBe('config-issues');
  });
});

describe('readLogs', () => {
  const read = (via: 'simulate' | 'plan', source: string) =>
    readLogs(via, source, new Simulation(), {
      reader: spec,
      input,
      io: io(),
      limits: { since: null, cap: 10 },
    });

  it('says a source that is not log events as data, which the CLI words with the setting of the reading command', async () => {
    const simulate = await problemOf(read('simulate', 'bad.jsonl'));
    expect(simulate.problem).toMatchObject({ code: 'LOGS_UNREADABLE', via: 'simulate' });
    expect(simulate.message).not.toMatch(/--/);
    expect(runErrorMessage(simulate)).toBe('--logs bad.jsonl:1: not JSON: not json');
    expect(runErrorMessage(await problemOf(read('plan', 'bad.jsonl')))).toBe(
      '--simulate bad.jsonl:1: not JSON: not json',
    );
  });

  it("refuses the tenant's logs under the spec profile, before any request", async () => {
    const simulate = await problemOf(read('simulate', 'tenant'));
    expect(simulate.problem).toEqual({ code: 'READ_NEEDS_FULL', read: 'simulate-tenant-logs' });
    expect(runErrorMessage(simulate)).toMatch(
      /^simulate --logs tenant reads the tenant, and the spec API profile/,
    );
    expect(runErrorMessage(await problemOf(read('plan', 'tenant')))).toMatch(
      /^plan --simulate tenant reads the tenant/,
    );
  });
});

describe('runPlan with a log source to simulate', () => {
  const planRequest = (over: Partial<PlanRequest> = {}): PlanRequest => ({
    input,
    vars: {},
    state: { file: 'state.json' },
    connection: spec.connection,
    api: 'spec',
    selection: { targets: [], replace: [], destroy: false },
    refresh: false,
    strict: false,
    detailedExitcode: false,
    simulate: 'logs.jsonl',
    output: { format: 'text', verbose: false },
    ...over,
  });
  /** A view that keeps the plan shown; the events are not looked at here. */
  const showing = () => {
    const shown: Plan[] = [];
    const view: RunView = {
      event: () => {},
      showPlan: (review) => Promise.resolve(void shown.push(review.plan)),
      confirm: () => Promise.reject(new Error('plan asks nothing')),
    };
    return { view, shown };
  };
  const maker = { toolVersion: '0.0.0-test', now: () => new Date(0) };

  it('shows the plan with what each changed policy would have done to the events read; returns and saves it without', async () => {
    const { view, shown } = showing();
    const result = await runPlan(planRequest({ out: 'plan.json' }), io(), view, maker);
    expect(result.status).toBe('planned');
    const [address, evidence] = Object.entries(shown[0]!.simulated ?? {})[0]!;
    expect(address).toBe('rate_limit_policy["oauth_authentication_api","client","default"]');
    // A limit of 1 a second, three events, two in the same second: one turned away.
    expect(evidence).toMatchObject({ requests: 3, peak: 2, secondsOver: 1, turnedAway: 1, limited: ['web'] });
    if (result.status === 'planned') expect(result.plan.simulated).toBeUndefined();
    expect(readFileSync(join(work.dir, 'plan.json'), 'utf8')).not.toContain('simulated');
  });

  it('shows the plan as made when the request does not simulate', async () => {
    const { view, shown } = showing();
    await runPlan(planRequest({ simulate: undefined }), io(), view, maker);
    expect(shown[0]!.simulated).toBeUndefined();
  });

  it('stops with the log source’s problem as data, before the plan is shown', async () => {
    const { view, shown } = showing();
    const problem = await problemOf(runPlan(planRequest({ simulate: 'bad.jsonl' }), io(), view, maker));
    expect(problem.problem).toMatchObject({ code: 'LOGS_UNREADABLE', via: 'plan' });
    expect(shown).toEqual([]);
  });
});
