import { describe, expect, it } from 'vitest';
import { everyActionPlan, policy, recorded, stateDoc } from '../../test/plan-builders.js';
import { PlanError } from './errors.js';
import { checkPlanIsCurrent, parsePlanFile, readPlanFile, serializePlan } from './plan-file.js';
import { planChanges } from './planner.js';
import { renderJson } from './render-json.js';
import type { Plan } from './types.js';

const META = { createdAt: '2026-03-01T12:00:00.000Z', toolVersion: '0.1.0', configPaths: ['/repo/tenant'] };

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

  it('carry when, by what and from which config the plan was made', () => {
    const saved = readPlanFile(serializePlan(sample(), META), 'p.json');
    expect(saved).toMatchObject({
      createdAt: '2026-03-01T12:00:00.000Z',
      toolVersion: '0.1.0',
      configPaths: ['/repo/tenant'],
      configPath: '/repo/tenant',
    });
    const single = readPlanFile(
      serializePlan(sample(), { ...META, configPaths: undefined, configPath: 'a.yaml' }),
      'p',
    );
    expect(single.configPaths).toEqual(['a.yaml']);
  });

  it('fall back to the plan file itself when no config path was saved', () => {
    expect(readPlanFile(renderJson(sample()), 'plans/p.json').configPath).toBe('plans/p.json');
  });

  it('are the JSON plan plus three top-level fields', () => {
    const file = JSON.parse(serializePlan(sample(), META)) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual([
      'format_version',
      'created_at',
      'tool_version',
      'config_paths',
      'state',
      'summary',
      'changes',
    ]);
  });

  it('refuse an unknown format version, naming what was found and what is supported', () => {
    const text = edit(serializePlan(sample(), META), (f) => {
      f.format_version = 7;
      f.tool_version = '9.0.0';
    });
    const err = thrown(() => parsePlanFile(text, 'p.json'));
    expect(err.code).toBe('PLAN_UNKNOWN_VERSION');
    expect(err.message).toBe(
      'p.json has plan format version 7 (made by tenantform 9.0.0), but this tenantform reads format version 1 only; make the plan again with this tenantform',
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
      (f) => ((f.changes as Record<string, unknown>[])[0]!.action = 'update'),
      /\n {2}changes\[0\]: action must be one of: create, delete/,
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
      /a token exchange profile cannot be deleted/,
    ],
  ])('refuse a plan with %s', (_label, change, message) => {
    const err = thrown(() => parsePlanFile(edit(serializePlan(sample(), META), change), 'p.json'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(/^p\.json is not a valid tenantform plan:\n/);
    expect(err.message).toMatch(message);
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
