import { describe, expect, it } from 'vitest';
import { everyActionPlan, policy, recorded, stateDoc } from '../../test/plan-builders.js';
import { PlanError } from './errors.js';
import {
  checkPlanIsCurrent,
  checkPlanLocation,
  checkPlanTarget,
  parsePlanFile,
  readPlanFile,
  serializePlan,
} from './plan-file.js';
import { planChanges } from './planner.js';
import { renderJson } from './render-json.js';
import type { Plan } from './types.js';

const META = {
  createdAt: '2026-03-01T12:00:00.000Z',
  toolVersion: '0.1.0',
  configPaths: ['/repo/tenant'],
  stateLocation: { backend: 'file' as const, path: '/repo/tenant/.tenantform/state.json' },
  target: 'https://tenant.example.com/api/v2',
};

function sample(): Plan {
  const { desired, state } = everyActionPlan();
  return planChanges(desired, state);
}

function thrown(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error('expected a PlanError');
}

function edit(text: string, change: (file: Record<string, unknown>) => void): string {
  const file = JSON.parse(text) as Record<string, unknown>;
  change(file);
  return JSON.stringify(file);
}

describe('plan files', () => {
  it('read back exactly the plan that was saved', () => {
    const plan = sample();
    const text = serializePlan(plan, META);
    expect(JSON.parse(JSON.stringify(parsePlanFile(text, 'p.json')))).toEqual(
      JSON.parse(JSON.stringify(plan)),
    );
    expect(renderJson(parsePlanFile(text, 'p.json'))).toBe(renderJson(plan));
  });

  it('carry when, by what, from which config and state, and for which target the plan was made', () => {
    const saved = readPlanFile(serializePlan(sample(), META), 'p.json');
    expect(saved).toMatchObject({
      createdAt: '2026-03-01T12:00:00.000Z',
      toolVersion: '0.1.0',
      configPaths: ['/repo/tenant'],
      stateLocation: { backend: 'file', path: '/repo/tenant/.tenantform/state.json' },
      target: 'https://tenant.example.com/api/v2',
    });
    const pg = { backend: 'pg' as const, server: 'db:5432/tf', schema: 'tenantform', workspace: 'prod' };
    const other = readPlanFile(serializePlan(sample(), { ...META, stateLocation: pg, target: null }), 'p');
    expect(other.stateLocation).toEqual(pg);
    expect(other.target).toBeNull();
  });

  it('know no state location when read from plan --format json output, and apply refuses that', () => {
    const saved = readPlanFile(renderJson(sample()), 'plans/p.json');
    expect(saved.stateLocation).toBeNull();
    const err = thrown(() => checkPlanLocation(saved, META.stateLocation, 'plans/p.json'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(/plans\/p\.json does not say which state it was made from/);
  });

  it('refuse another state location or target than the plan was made for, naming both', () => {
    const saved = readPlanFile(serializePlan(sample(), META), 'p.json');
    expect(() => checkPlanLocation(saved, META.stateLocation, 'p.json')).not.toThrow();
    const moved = thrown(() =>
      checkPlanLocation(saved, { backend: 'file', path: '/tmp/sp/.tenantform/state.json' }, 'p.json'),
    );
    expect(moved.code).toBe('PLAN_OTHER_STATE');
    expect(moved.message).toBe(
      'p.json was made from the state at /repo/tenant/.tenantform/state.json, but this apply would use /tmp/sp/.tenantform/state.json; apply it with the state settings plan had (or none), or make the plan again',
    );
    const pg = { backend: 'pg' as const, server: 'db:5432/tf', schema: 'tenantform', workspace: 'prod' };
    expect(thrown(() => checkPlanLocation(saved, pg, 'p.json')).code).toBe('PLAN_OTHER_STATE');
    const onPg = readPlanFile(serializePlan(sample(), { ...META, stateLocation: pg }), 'p');
    expect(() => checkPlanLocation(onPg, { ...pg }, 'p')).not.toThrow();
    expect(thrown(() => checkPlanLocation(onPg, { ...pg, workspace: 'dev' }, 'p')).message).toMatch(
      /made from the state at pg workspace "prod" on db:5432\/tf \(schema tenantform\), but this apply would use pg workspace "dev"/,
    );

    expect(() => checkPlanTarget(saved, 'https://tenant.example.com/api/v2', 'p.json')).not.toThrow();
    const target = thrown(() => checkPlanTarget(saved, 'https://other.example.com/api/v2', 'p.json'));
    expect(target.code).toBe('PLAN_OTHER_TARGET');
    expect(target.message).toMatch(
      /^p\.json was made for the API at https:\/\/tenant\.example\.com\/api\/v2, but this apply would send to https:\/\/other\.example\.com\/api\/v2;/,
    );
    const anyTarget = readPlanFile(serializePlan(sample(), { ...META, target: null }), 'p');
    expect(() => checkPlanTarget(anyTarget, 'https://other.example.com/api/v2', 'p')).not.toThrow();
  });

  it('are the JSON plan plus five top-level fields', () => {
    const file = JSON.parse(serializePlan(sample(), META)) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual([
      'format_version',
      'api',
      'created_at',
      'tool_version',
      'config_paths',
      'state_location',
      'target',
      'state',
      'summary',
      'changes',
    ]);
  });

  it('refuse a plan of format version 1 (it did not record its state location), naming both versions', () => {
    const text = edit(serializePlan(sample(), META), (f) => {
      f.format_version = 1;
    });
    const err = thrown(() => parsePlanFile(text, 'old.plan'));
    expect(err.code).toBe('PLAN_UNKNOWN_VERSION');
    expect(err.message).toMatch(
      /^old\.plan has plan format version 1 \(made by tenantform 0\.1\.0\), but this tenantform reads format versions 2 and 3 only/,
    );
  });

  it('refuse an unknown format version, naming what was found and what is supported', () => {
    const text = edit(serializePlan(sample(), META), (f) => {
      f.format_version = 7;
      f.tool_version = '9.0.0';
    });
    const err = thrown(() => parsePlanFile(text, 'p.json'));
    expect(err.code).toBe('PLAN_UNKNOWN_VERSION');
    expect(err.message).toBe(
      'p.json has plan format version 7 (made by tenantform 9.0.0), but this tenantform reads format versions 2 and 3 only; make the plan again with this tenantform',
    );
  });

  it.each([
    [
      'text that is not JSON',
      '{"format_version": 1,',
      /p\.json is not a tenantform plan: it is not valid JSON/,
    ],
    ['JSON that is not a plan', '[1, 2]', /it has no format_version/],
    ['an empty object', '{}', /it has no format_version/],
  ])('refuse %s', (_label, text, message) => {
    const err = thrown(() => parsePlanFile(text, 'p.json'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(message);
  });

  it.each<[string, (f: Record<string, unknown>) => void, RegExp]>([
    [
      'an unknown action',
      (f) => ((f.changes as Record<string, unknown>[])[0]!.action = 'modify'),
      /\n {2}changes\[0\]: action must be one of: create, update, delete/,
    ],
    ['a missing summary', (f) => delete f.summary, /\(top level\): missing required property "summary"/],
    ['an unknown field', (f) => (f.secret = 'x'), /unknown property "secret"/],
    [
      'a delete without an id',
      (f) => ((f.changes as Record<string, unknown>[])[0]!.id = null),
      /changes\[0\] \(.*cimd_clients.*\): a delete needs the recorded id/,
    ],
    [
      'a summary that does not match',
      (f) => ((f.summary as Record<string, number>).create = 9),
      /summary: the counts do not match/,
    ],
    [
      'an address that does not match its identity',
      (f) => ((f.changes as Record<string, unknown>[])[1]!.identity = ['a', 'b', 'c']),
      /the address does not match kind and identity/,
    ],
    [
      'a token exchange profile delete',
      (f) => {
        const last = (f.changes as Record<string, unknown>[]).at(-1)!;
        last.action = 'delete';
        const summary = f.summary as Record<string, number>;
        summary.blocked = summary.blocked! - 1;
        summary.delete = summary.delete! + 1;
      },
      /a token exchange profile cannot be deleted under API profile spec/,
    ],
    [
      'an update under API profile spec',
      (f) => {
        const first = (f.changes as Record<string, unknown>[])[0]!;
        const summary = f.summary as Record<string, number>;
        summary[first.action as string]! -= 1;
        first.action = 'update';
        summary.update = 1;
      },
      /a rate limit policy cannot be updated under API profile spec/,
    ],
    ['no api in a format 3 plan', (f) => delete f.api, /missing required property "api"/],
    ['an unknown api', (f) => (f.api = 'partial'), /api must be one of: spec, full/],
    [
      'no update count in a format 3 plan',
      (f) => delete (f.summary as Record<string, number>).update,
      /summary: the counts do not match/,
    ],
  ])('refuse a plan with %s', (_label, change, message) => {
    const err = thrown(() => parsePlanFile(edit(serializePlan(sample(), META), change), 'p.json'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(/^p\.json is not a valid tenantform plan:\n/);
    expect(err.message).toMatch(message);
  });
});

describe('plan files of format 2 (before API profiles)', () => {
  function formatTwo(plan: Plan): string {
    return edit(serializePlan(plan, META), (f) => {
      f.format_version = 2;
      delete f.api;
      delete (f.summary as Record<string, number>).update;
    });
  }

  it('are read as spec plans with nothing to update', () => {
    const plan = sample();
    const read = parsePlanFile(formatTwo(plan), 'old.plan');
    expect(read.api).toBe('spec');
    expect(read.summary.update).toBe(0);
    expect(renderJson(read)).toBe(renderJson(plan));
  });

  it('are refused when they carry an api or an update count, which format 2 did not have', () => {
    const text = edit(formatTwo(sample()), (f) => (f.api = 'full'));
    const err = thrown(() => parsePlanFile(text, 'old.plan'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(/a format 2 plan has no api and no update count/);
  });
});

describe('plan files under API profile full', () => {
  it('record the profile and read it back', () => {
    const { desired, state } = everyActionPlan();
    const plan = planChanges(desired, state, { api: 'full' });
    const text = serializePlan(plan, META);
    expect((JSON.parse(text) as { api: string }).api).toBe('full');
    expect(parsePlanFile(text, 'p.json')).toEqual(JSON.parse(JSON.stringify(plan)));
  });
});

describe('checkPlanIsCurrent', () => {
  const doc = stateDoc([recorded('rate_limit_policy', policy('x'), { id: 'rlp_1' })], {
    lineage: 'L1',
    serial: 4,
  });
  const plan = planChanges([], doc);

  it('accepts the state the plan was made from', () => {
    expect(() => checkPlanIsCurrent(plan, doc)).not.toThrow();
    expect(() => checkPlanIsCurrent(planChanges([], null), null)).not.toThrow();
  });

  it.each([
    [
      'a newer serial',
      { ...doc, serial: 6 },
      'the plan was made from state serial 4 (lineage L1) but the state is now at serial 6; run tenantform plan again',
    ],
    [
      'another lineage',
      { ...doc, lineage: 'L2' },
      'the plan was made from state serial 4 (lineage L1) but the state now has lineage L2 (serial 4): it is a different state; run tenantform plan again',
    ],
    [
      'no state at all',
      null,
      'the plan was made from state serial 4 (lineage L1) but no state exists now (check --state and the backend settings); run tenantform plan again',
    ],
  ])('refuses %s as stale', (_label, now, message) => {
    const err = thrown(() => checkPlanIsCurrent(plan, now));
    expect(err.code).toBe('PLAN_STALE');
    expect(err.message).toBe(message);
  });

  it('refuses a plan made before any state existed once a state exists', () => {
    const err = thrown(() => checkPlanIsCurrent(planChanges([], null), doc));
    expect(err.message).toBe(
      'the plan was made from no state but a state exists now (serial 4, lineage L1); run tenantform plan again',
    );
  });
});
