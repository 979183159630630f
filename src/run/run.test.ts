/**
 * The runs of src/run (runPlan, runApply, runRefresh) through a fake view:
 * what they tell, in order, what they ask, and what they end with, against
 * the emulator over 127.0.0.1 and a file state in a temporary directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { startEmulator, type EmulatorHandle } from '../emulator/index.js';
import type { Plan } from '../plan/types.js';
import { runApply } from './apply.js';
import { runPlan } from './plan.js';
import { runRefresh } from './refresh.js';
import type {
  ApplyRequest,
  ConfigInput,
  ConnectionRequest,
  PlanRequest,
  RunIO,
  RunNotice,
} from './requests.js';
import type { PlanReview, RunEvent, RunView } from './view.js';

const POLICIES = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 10 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: third_party_clients
    configuration: { action: log, limit: 20 }
`;

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };
beforeAll(async () => {
  emulator = await startEmulator({ api: 'full' });
});
afterAll(() => emulator.stop());
beforeEach(() => {
  work = tempDir('tenantform-run-');
  mkdirSync(join(work.dir, 'config'));
  writeFileSync(join(work.dir, 'config', 'p.yaml'), POLICIES);
  emulator.reset();
});
afterEach(() => work.cleanup());

/** A view that records what the run tells and asks, answering the question with `answer`. */
function fakeView(answer: boolean, onEvent: (event: RunEvent) => void = () => {}) {
  const told: string[] = [];
  const events: RunEvent[] = [];
  const view: RunView = {
    event(event) {
      onEvent(event);
      events.push(event);
      told.push(event.kind === 'progress' ? `progress:${event.event.type}` : event.kind);
    },
    showPlan(review: PlanReview) {
      told.push(`showPlan:${review.plan.summary.create}`);
      return Promise.resolve();
    },
    confirm(plan: Plan) {
      told.push(`confirm:${plan.changes.length}`);
      return Promise.resolve(answer);
    },
  };
  return { view, told, events };
}

function runIO(): RunIO & { notices: RunNotice[] } {
  const notices: RunNotice[] = [];
  return {
    env: { TENANTFORM_TOKEN: emulator.token },
    cwd: work.dir,
    notice: (n) => notices.push(n),
    notices,
  };
}

const input = (): ConfigInput => ({ env: null, paths: ['config'], varFiles: [] });
const connection = (): ConnectionRequest => ({
  named: { baseUrl: emulator.baseUrl },
  target: { baseUrl: emulator.baseUrl },
  debug: false,
  pacing: {},
  reassignTenant: false,
});
const statePath = () => join(work.dir, 'state.json');
const selection = { targets: [], replace: [], destroy: false };

function applyRequest(overrides: Partial<ApplyRequest> = {}): ApplyRequest {
  return {
    command: 'apply',
    source: { kind: 'config', input: input(), vars: {} },
    state: { file: 'state.json' },
    lockTimeoutMs: 0,
    connection: connection(),
    api: 'spec',
    selection,
    refresh: false,
    strict: false,
    skipBlocked: false,
    autoApprove: false,
    parallelism: 1,
    batchSize: 100,
    output: { json: false, verbose: false },
    ...overrides,
  };
}

function planRequest(overrides: Partial<PlanRequest> = {}): PlanRequest {
  return {
    input: input(),
    vars: {},
    state: { file: 'state.json' },
    connection: connection(),
    api: 'spec',
    selection,
    refresh: false,
    strict: false,
    detailedExitcode: false,
    output: { format: 'text', verbose: false },
    ...overrides,
  };
}

const recorded = () =>
  existsSync(statePath())
    ? (JSON.parse(readFileSync(statePath(), 'utf8')) as { resources: unknown[] }).resources
    : [];

describe('runApply', () => {
  it('a refresh under the spec profile: READ_NEEDS_FULL (apply-refresh), nothing sent', async () => {
    const run = runApply(applyRequest({ refresh: true }), runIO(), fakeView(true).view);
    await expect(run).rejects.toMatchObject({ problem: { code: 'READ_NEEDS_FULL', read: 'apply-refresh' } });
    expect(emulator.stats().requests).toBe(0);
  });

  it('declined: tells where, shows the plan, asks, and sends and records nothing', async () => {
    const { view, told } = fakeView(false);
    const result = await runApply(applyRequest(), runIO(), view);
    expect(result.status).toBe('cancelled');
    expect(told).toEqual(['where', 'no-state', 'figures', 'showPlan:2', 'figures', 'confirm:2']);
    expect(emulator.stats().requests).toBe(0);
    expect(recorded()).toEqual([]);
  });

  it('confirmed: the requests sent, their progress told in order, the outcome told before the commit', async () => {
    let recordedWhenTold: unknown[] | null = null;
    const { view, told, events } = fakeView(true, (event) => {
      if (event.kind === 'applied') recordedWhenTold = recorded();
    });
    const result = await runApply(applyRequest(), runIO(), view);
    expect(result.status).toBe('applied');
    // Told before the commit: the state file does not hold them yet (the journal does).
    expect(recordedWhenTold).toEqual([]);
    // The executor's progress comes between the start and the end; operations may overlap.
    const started = told.indexOf('apply-started');
    const finished = told.indexOf('apply-finished');
    expect(told.slice(started + 1, finished).sort()).toEqual([
      'progress:done',
      'progress:done',
      'progress:start',
      'progress:start',
    ]);
    expect(told.filter((t) => !t.startsWith('progress:'))).toEqual([
      'where',
      'no-state',
      'figures',
      'showPlan:2',
      'figures',
      'confirm:2',
      'apply-started',
      'apply-finished',
      'figures',
      'applied',
    ]);
    expect(events.find((e) => e.kind === 'apply-started')).toEqual({ kind: 'apply-started', total: 2 });
    expect(recorded()).toHaveLength(2);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(2);
  });

  it('approved by the request: asks nothing; a second run has nothing to apply and sends nothing', async () => {
    const first = fakeView(false);
    expect((await runApply(applyRequest({ autoApprove: true }), runIO(), first.view)).status).toBe('applied');
    expect(first.told).not.toContain('confirm:2');
    const before = emulator.stats().requests;
    const second = fakeView(false);
    const result = await runApply(applyRequest({ autoApprove: true }), runIO(), second.view);
    expect(result).toMatchObject({ status: 'nothing-to-apply', hasChanges: false });
    expect(second.told).toEqual(['where', 'figures', 'showPlan:0']);
    expect(emulator.stats().requests).toBe(before);
  });

  it('a config with problems: told, and no state opened', async () => {
    writeFileSync(join(work.dir, 'config', 'p.yaml'), 'rate_limit_policies:\n  - resource: nope\n');
    const { view, told } = fakeView(true);
    expect((await runApply(applyRequest(), runIO(), view)).status).toBe('stopped');
    expect(told).toEqual(['config-issues']);
    expect(existsSync(statePath())).toBe(false);
  });
});

describe('runPlan', () => {
  it('tells where and that there is no state, shows the plan; sends nothing and writes no state', async () => {
    const { view, told } = fakeView(true);
    const result = await runPlan(planRequest(), runIO(), view, { toolVersion: '0.0.0' });
    expect(result).toMatchObject({ status: 'planned', hasChanges: true });
    expect(told).toEqual(['where', 'no-state', 'figures', 'showPlan:2']);
    expect(emulator.stats().requests).toBe(0);
    expect(existsSync(statePath())).toBe(false);
  });

  it('saves the plan it showed, after showing it, sealed, only for its owner', async () => {
    const { view, told, events } = fakeView(true);
    await runPlan(planRequest({ out: 'my.plan' }), runIO(), view, {
      toolVersion: '9.9.9',
      now: () => new Date('2026-01-02T03:04:05Z'),
    });
    expect(told.slice(-2)).toEqual(['showPlan:2', 'plan-saved']);
    expect(events.at(-1)).toEqual({ kind: 'plan-saved', file: 'my.plan' });
    const saved = readFileSync(join(work.dir, 'my.plan'), 'utf8');
    expect(saved).toMatch(/"created_at": ?"2026-01-02T03:04:05.000Z"/);
    expect(saved).toMatch(/"tool_version": ?"9.9.9"/);
  });
});

const refreshRequest = () => ({
  input: input(),
  vars: {},
  state: { file: 'state.json' },
  lockTimeoutMs: 0,
  connection: connection(),
  parallelism: 2,
});

describe('runRefresh', () => {
  it('stops at a reference the tenant lacks, before anything is recorded', async () => {
    await runApply(applyRequest({ autoApprove: true }), runIO(), fakeView(true).view);
    emulator.reset();
    writeFileSync(
      join(work.dir, 'config', 'q.yaml'),
      POLICIES.replace('default', '"client_id:nosuch"').replace('third_party_clients', 'cimd_clients'),
    );
    const { view, told, events } = fakeView(true);
    const result = await runRefresh(refreshRequest(), runIO(), view);
    expect(result.status).toBe('references-missing');
    expect(told).toEqual(['where', 'references']);
    expect(events[1]).toMatchObject({
      kind: 'references',
      holds: false,
      missing: [{ code: expect.any(String) }],
    });
    // The two policies gone from the tenant are still recorded: nothing was written.
    expect(recorded()).toHaveLength(2);
  });

  it('tells where and the references, records what the tenant holds of the config', async () => {
    await runApply(applyRequest({ autoApprove: true }), runIO(), fakeView(true).view);
    const { view, told } = fakeView(true);
    const result = await runRefresh(refreshRequest(), runIO(), view);
    expect(result.status).toBe('refreshed');
    expect(told).toEqual(['where', 'references']);
    expect(result.status === 'refreshed' && result.entries).toEqual([]);
  });
});
