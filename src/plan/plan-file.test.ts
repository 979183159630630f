import { describe, expect, it } from 'vitest';
import { everyActionPlan, everyKindOfPlan, policy, recorded, stateDoc } from '../../test/plan-builders.js';
import { messageOf } from '../cli/run-words.js';
import { PlanError } from './errors.js';
import {
  checkPlanIsCurrent,
  checkPlanLocation,
  checkPlanTarget,
  openPlanFile,
  readPlanFile as readOpened,
  serializePlan as serializeSealed,
  type PlanFileMeta,
} from './plan-file.js';
import { sealOf } from './plan-seal.js';
import { planChanges } from './planner.js';
import { reasonText } from './reasons.js';
import { renderJson } from './render-json.js';
import { renderText } from './render-text.js';
import type { Plan } from './types.js';

const META = {
  createdAt: '2026-03-01T12:00:00.000Z',
  toolVersion: '0.1.0',
  configPaths: ['/repo/tenant'],
  stateLocation: { backend: 'file' as const, path: '/repo/tenant/.tenantform/state.json' },
  target: 'https://tenant.example.com/api/v2',
};

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);

const serializePlan = (plan: Plan, meta: PlanFileMeta) => serializeSealed(plan, meta, KEY);
const readPlanFile = (text: string, fileName: string, key: Buffer | null = KEY) =>
  readOpened(openPlanFile(text, fileName), key, '/repo/tenant/.tenantform/state.json.key');
const parsePlanFile = (text: string, fileName: string) => readPlanFile(text, fileName).plan;

function sample(): Plan {
  const { desired, state } = everyActionPlan();
  return planChanges(desired, state);
}

/** The PlanError `fn` throws, its message as the command line words it (settings named by their flags). */
function thrown(fn: () => unknown): Pick<PlanError, 'code' | 'message'> {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanError) return { code: err.code, message: messageOf(err) };
    throw err;
  }
  throw new Error('expected a PlanError');
}

function edit(text: string, change: (file: Record<string, unknown>) => void): string {
  const file = JSON.parse(text) as Record<string, unknown>;
  change(file);
  return JSON.stringify(file);
}

/** An edit sealed again with the state's key: what only someone who can read the key could write. */
function resealed(text: string, change: (file: Record<string, unknown>) => void): string {
  return edit(text, (file) => {
    change(file);
    delete file.seal;
    file.seal = sealOf(file, KEY);
  });
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

  it('refuse plan --format json output, which has no seal', () => {
    const err = thrown(() => readPlanFile(renderJson(sample()), 'plans/p.json'));
    expect(err.code).toBe('PLAN_UNSEALED');
    expect(err.message).toMatch(
      /^plans\/p\.json has no seal, so nothing shows it is what tenantform plan --out wrote/,
    );
  });

  it('refuse another state location or target than the plan was made for, naming both', () => {
    const saved = readPlanFile(serializePlan(sample(), META), 'p.json');
    expect(() => checkPlanLocation(saved, META.stateLocation, 'p.json')).not.toThrow();
    const moved = thrown(() =>
      checkPlanLocation(saved, { backend: 'file', path: '/tmp/sp/.tenantform/state.json' }, 'p.json'),
    );
    expect(moved.code).toBe('PLAN_OTHER_STATE');
    expect(moved.message).toBe(
      'p.json was made from the state at /repo/tenant/.tenantform/state.json, but this apply would use /tmp/sp/.tenantform/state.json: ' +
        'a saved plan is applied only to the state the command names (--state, --backend, --workspace), its --env environment names, ' +
        'or the default one of the current directory. If that state is the one, name it (--state /repo/tenant/.tenantform/state.json); else make the plan again',
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
    expect(() => checkPlanTarget(anyTarget, null, 'p')).not.toThrow();
  });

  it('refuse a target that nothing but the plan names, saying how to give it', () => {
    const saved = readPlanFile(serializePlan(sample(), META), 'p.json');
    const err = thrown(() => checkPlanTarget(saved, null, 'p.json'));
    expect(err.code).toBe('PLAN_TARGET_UNCONFIRMED');
    expect(err.message).toContain(
      'pass --base-url https://tenant.example.com/api/v2 (or --domain), set TENANTFORM_BASE_URL or TENANTFORM_DOMAIN, or give --env NAME',
    );
  });

  it('are the JSON plan plus six top-level fields, the seal last', () => {
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
      'seal',
    ]);
  });

  it.each([2, 3])(
    'refuse a plan of format version %i, made before seals, saying to make it again',
    (version) => {
      const text = edit(serializePlan(sample(), META), (f) => {
        f.format_version = version;
        delete f.seal;
      });
      const err = thrown(() => parsePlanFile(text, 'old.plan'));
      expect(err.code).toBe('PLAN_UNSEALED');
      expect(err.message).toBe(
        `old.plan has plan format version ${version} (made by tenantform 0.1.0), from before saved plans were sealed: ` +
          'nothing shows it was not edited since, so apply and show take it no more. Make the plan again with this ' +
          'tenantform (tenantform plan --out).',
      );
    },
  );

  it('refuse an unknown format version, naming what was found and what is supported', () => {
    const text = edit(serializePlan(sample(), META), (f) => {
      f.format_version = 7;
      f.tool_version = '9.0.0';
    });
    const err = thrown(() => parsePlanFile(text, 'p.json'));
    expect(err.code).toBe('PLAN_UNKNOWN_VERSION');
    expect(err.message).toBe(
      'p.json has plan format version 7 (made by tenantform 9.0.0), but this tenantform reads format version 4 only; make the plan again with this tenantform',
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
    ['no api', (f) => delete f.api, /missing required property "api"/],
    ['an unknown api', (f) => (f.api = 'partial'), /api must be one of: spec, full/],
    [
      'no update count',
      (f) => delete (f.summary as Record<string, number>).update,
      /summary: the counts do not match/,
    ],
  ])('refuse a plan with %s', (_label, change, message) => {
    const err = thrown(() => parsePlanFile(resealed(serializePlan(sample(), META), change), 'p.json'));
    expect(err.code).toBe('PLAN_INVALID');
    expect(err.message).toMatch(/^p\.json is not a valid tenantform plan:\n/);
    expect(err.message).toMatch(message);
  });
});

describe('the reasons of a plan file', () => {
  it.each(everyKindOfPlan().map((plan, i) => [i, plan] as const))(
    'keep each reason in words and read its code and data back (plan %i)',
    (_i, plan) => {
      const text = serializePlan(plan, META);
      const saved = JSON.parse(text) as { changes: { reason: unknown }[] };
      expect(saved.changes.map((c) => c.reason)).toEqual(plan.changes.map((c) => reasonText(c)));
      expect(parsePlanFile(text, 'p.json').changes.map((c) => c.reason)).toEqual(
        plan.changes.map((c) => c.reason),
      );
    },
  );

  it('are worded when shown, never taken from the file', () => {
    const plan = sample();
    const text = resealed(serializePlan(plan, META), (file) => {
      for (const change of file.changes as { reason: string }[]) change.reason = 'harmless, trust me';
    });
    const read = parsePlanFile(text, 'p.json');
    expect(renderText(read, { color: false })).not.toContain('harmless');
    expect(renderText(read, { color: false })).toBe(renderText(plan, { color: false }));
  });

  it("give a change whose action does not follow from its before and after its action's plainest code", () => {
    const plan = sample();
    const at = plan.changes.findIndex((c) => c.action === 'replace');
    const text = resealed(serializePlan(plan, META), (file) => {
      const changes = file.changes as { action: string }[];
      changes[at]!.action = 'no-op';
      const summary = file.summary as Record<string, number>;
      summary.replace! -= 1;
      summary.no_op! += 1;
    });
    expect(parsePlanFile(text, 'p.json').changes[at]!.reason).toEqual({ code: 'no-op' });
  });
});

describe('the seal of a plan file', () => {
  const CHANGED =
    /^p\.json was changed after tenantform plan --out sealed it: its seal does not match its content\./;
  const policyChange = (f: Record<string, unknown>) =>
    (f.changes as { kind: string; action: string; after: Record<string, unknown> | null }[]).find(
      (c) => c.kind === 'rate_limit_policy' && c.after !== null,
    )!;

  it.each<[string, (f: Record<string, unknown>) => void]>([
    ['the API profile', (f) => (f.api = 'full')],
    ['the target', (f) => (f.target = 'https://evil.example.com/api/v2')],
    ['the state location', (f) => (f.state_location = { backend: 'file', path: '/tmp/copy/state.json' })],
    ["a change's after", (f) => (policyChange(f).after!.configuration = { action: 'block', limit: 0 })],
    ['a dropped change', (f) => (f.changes as unknown[]).pop()],
    ['an added change', (f) => (f.changes as unknown[]).push((f.changes as unknown[])[0])],
    ['a no-op turned into a delete', (f) => ((f.changes as { action: string }[])[0]!.action = 'no-op')],
    ['the summary', (f) => ((f.summary as Record<string, number>).create = 0)],
    ['the seal itself', (f) => ((f.seal as { mac: string }).mac = '0'.repeat(64))],
  ])('refuses any edit, here of %s, with one line', (_what, change) => {
    const err = thrown(() => readPlanFile(edit(serializePlan(sample(), META), change), 'p.json'));
    expect(err.code).toBe('PLAN_TAMPERED');
    expect(err.message).toMatch(CHANGED);
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it('holds when only the layout changed (spaces, key order)', () => {
    const text = serializePlan(sample(), META);
    const reordered = JSON.stringify(
      Object.fromEntries(Object.entries(JSON.parse(text) as object).reverse()),
    );
    expect(readPlanFile(reordered, 'p.json').plan).toEqual(readPlanFile(text, 'p.json').plan);
  });

  it('tells a plan sealed with another key from an edited one', () => {
    const err = thrown(() => readPlanFile(serializePlan(sample(), META), 'p.json', OTHER_KEY));
    expect(err.code).toBe('PLAN_TAMPERED');
    expect(err.message).toMatch(
      /^p\.json was sealed with another key than the plan key of its state \(\/repo\/tenant\/\.tenantform\/state\.json\.key\)/,
    );
  });

  it('cannot be checked when the state has no plan key', () => {
    const err = thrown(() => readPlanFile(serializePlan(sample(), META), 'p.json', null));
    expect(err.code).toBe('PLAN_KEY_MISSING');
    expect(err.message).toMatch(/^p\.json cannot be verified: the state it names has no plan key/);
  });

  it('is refused when it is not a seal tenantform writes', () => {
    const text = edit(
      serializePlan(sample(), META),
      (f) => (f.seal = { algorithm: 'md5', key: 'x', mac: 'y' }),
    );
    expect(thrown(() => readPlanFile(text, 'p.json')).code).toBe('PLAN_UNSEALED');
  });

  it('never holds the key', () => {
    const text = serializePlan(sample(), META);
    expect(text).not.toContain(KEY.toString('hex'));
    expect(text).not.toContain(KEY.toString('base64'));
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
