import { describe, expect, it } from 'vitest';
import { desired, permission, policy, profile, recorded, stateDoc } from '../../test/plan-builders.js';
import { PlanError } from './errors.js';
import { planChanges } from './planner.js';
import { reasonText } from './reasons.js';
import { parsePlanFile, serializePlan } from './plan-file.js';
import { sealOf } from './plan-seal.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import { closestMatch, editDistance } from './selection.js';
import { flagOf } from '../cli/run-words.js';

const KEY = Buffer.alloc(32, 1);

const DEFAULT = 'rate_limit_policy["oauth_authentication_api","client","default"]';
const CIMD = 'rate_limit_policy["oauth_authentication_api","client","cimd_clients"]';
const META = {
  createdAt: '2026-01-01T00:00:00.000Z',
  toolVersion: '0.1.0',
  stateLocation: { backend: 'file' as const, path: '/repo/.tenantform/state.json' },
  target: null,
};
const PROFILE = 'token_exchange_profile["urn:example:partner-token"]';
const PERMISSION = 'user_permission["auth0|u1","https://api.example.com","read:orders"]';

/** Config: default (limit changed), cimd (new), profile and permission unchanged; state: default and the rest. */
function fixture() {
  const changed = { ...policy('default'), configuration: { action: 'block', limit: 7 } };
  const want = [
    desired('rate_limit_policy', changed),
    desired('rate_limit_policy', policy('cimd_clients')),
    desired('token_exchange_profile', profile('urn:example:partner-token')),
    desired('user_permission', permission('auth0|u1', 'https://api.example.com', 'read:orders')),
  ];
  const have = stateDoc([
    recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' }),
    recorded('rate_limit_policy', policy('third_party_clients'), { id: 'rlp_2' }),
    recorded('token_exchange_profile', profile('urn:example:partner-token'), { id: 'tep_1' }),
    recorded('user_permission', permission('auth0|u1', 'https://api.example.com', 'read:orders'), {
      id: null,
    }),
  ]);
  return { want, have };
}

function planError(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error('expected a PlanError');
}

describe('--target', () => {
  it('limits the plan to the targets, keeps a replace whole, and marks the plan partial', () => {
    const { want, have } = fixture();
    const plan = planChanges(want, have, { targets: [DEFAULT] });
    expect(plan.targets).toEqual([DEFAULT]);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([[DEFAULT, 'replace']]);
    expect(plan.summary).toMatchObject({ replace: 1, create: 0, delete: 0 });
    expect(renderText(plan, { color: false, names: flagOf })).toContain(
      'This plan is partial (--target): it covers 1 resource only',
    );
    expect(renderMarkdown(plan, flagOf)).toContain('> This plan is partial (--target)');
  });

  it('accepts an address spelled with other spacing, and a full plan has no targets', () => {
    const { want, have } = fixture();
    const spaced = 'rate_limit_policy[ "oauth_authentication_api", "client", "cimd_clients" ]';
    expect(planChanges(want, have, { targets: [spaced] }).changes.map((c) => c.address)).toEqual([CIMD]);
    expect(planChanges(want, have).targets).toBeUndefined();
  });

  it('stays partial through a plan file', () => {
    const { want, have } = fixture();
    const plan = planChanges(want, have, { targets: [DEFAULT, CIMD] });
    const text = serializePlan(plan, META, KEY);
    const read = parsePlanFile(text, 'p.tfplan', KEY);
    expect(read.targets).toEqual([CIMD, DEFAULT].sort());
    expect(read.changes).toHaveLength(2);
  });

  it('refuses a plan file whose changes go beyond its targets', () => {
    const { want, have } = fixture();
    const plan = planChanges(want, have, { targets: [DEFAULT] });
    const { seal: _seal, ...json } = JSON.parse(serializePlan(plan, META, KEY)) as Record<string, unknown>;
    // Sealed again with the state's key: what only someone who can read the key could write.
    const edited = { ...json, targets: [CIMD] };
    const text = JSON.stringify({ ...edited, seal: sealOf(edited, KEY) });
    expect(() => parsePlanFile(text, 'p.tfplan', KEY)).toThrow(/not among the plan's targets/);
  });

  it('names the closest address when a target is in neither config nor state', () => {
    const { want, have } = fixture();
    const err = planError(() =>
      planChanges(want, have, {
        targets: ['rate_limit_policy["oauth_authentication_api","client","defualt"]'],
      }),
    );
    expect(err.code).toBe('PLAN_UNKNOWN_TARGET');
    expect(err.message).toContain(`did you mean '${DEFAULT}'?`);
  });

  it('names the closest address when a target does not even parse', () => {
    const { want, have } = fixture();
    const err = planError(() =>
      planChanges(want, have, { targets: ['token_exchange_profile[urn:example:partner-token]'] }),
    );
    expect(err.code).toBe('PLAN_UNKNOWN_TARGET');
    expect(err.message).toContain(`did you mean '${PROFILE}'?`);
  });
});

describe('--replace', () => {
  it('replaces an unchanged policy that has an id, saying it was requested', () => {
    const { want, have } = fixture();
    const plan = planChanges(want, have, { replace: [CIMD.replace('cimd_clients', 'default')] });
    const change = plan.changes.find((c) => c.address === DEFAULT)!;
    expect(change.action).toBe('replace');
    const unchanged = planChanges([desired('rate_limit_policy', policy('default'))], have, {
      replace: [DEFAULT],
    });
    const forced = unchanged.changes.find((c) => c.address === DEFAULT)!;
    expect(forced).toMatchObject({ action: 'replace', id: 'rlp_1' });
    expect(forced.reason).toEqual({ code: 'replace-by-request' });
    expect(reasonText(forced, flagOf)).toContain('replace requested with --replace');
    expect(renderText(unchanged, { color: false })).toContain('consumer_selector: "default"');
  });

  it.each([
    [PROFILE, 'no operation to update or delete a token exchange profile'],
    [PERMISSION, 'no operation to remove a permission from a user'],
    [CIMD, 'not in the state yet'],
  ])('refuses %s with the reason', (address, reason) => {
    const { want, have } = fixture();
    const err = planError(() => planChanges(want, have, { replace: [address] }));
    expect(err.code).toBe('PLAN_REPLACE_REFUSED');
    expect(err.message).toContain(reason);
  });

  it('refuses a policy recorded without an id (adopted) and says how to attach one', () => {
    const have = stateDoc([recorded('rate_limit_policy', policy('default'), { id: null, adopted: true })]);
    const err = planError(() =>
      planChanges([desired('rate_limit_policy', policy('default'))], have, { replace: [DEFAULT] }),
    );
    expect(err.code).toBe('PLAN_REPLACE_REFUSED');
    expect(err.message).toContain('adopted without an id');
    expect(err.message).toContain('tenantform import');
  });
});

describe('destroy', () => {
  it('deletes what can be deleted, forgets the rest (saying it stays), and ignores the config', () => {
    const { want, have } = fixture();
    const plan = planChanges(want, have, { destroy: true });
    expect(plan.destroy).toBe(true);
    expect(plan.changes.map((c) => c.action)).toEqual(['delete', 'delete', 'forget', 'forget']);
    const forgotten = plan.changes.find((c) => c.address === PROFILE)!;
    expect(forgotten.reason).toEqual({ code: 'destroy-forget' });
    expect(reasonText(forgotten)).toContain('stays on the tenant');
    const text = renderText(plan, { color: false });
    expect(text).toContain('2 resources the API cannot delete are only forgotten: they stay on the tenant.');
    expect(renderMarkdown(plan)).toContain('### tenantform destroy plan');
    const read = parsePlanFile(serializePlan(plan, META, KEY), 'd.tfplan', KEY);
    expect(read.destroy).toBe(true);
  });

  it('blocks a policy without an id, and combines with --target', () => {
    const have = stateDoc([
      recorded('rate_limit_policy', policy('default'), { id: null, adopted: true }),
      recorded('rate_limit_policy', policy('cimd_clients'), { id: 'rlp_9' }),
    ]);
    expect(planChanges([], have, { destroy: true }).changes.map((c) => c.action)).toEqual([
      'delete',
      'blocked',
    ]);
    const targeted = planChanges([], have, { destroy: true, targets: [CIMD] });
    expect(targeted.changes.map((c) => [c.address, c.action])).toEqual([[CIMD, 'delete']]);
  });

  it('says there is nothing to destroy when the state is empty', () => {
    expect(renderText(planChanges([], null, { destroy: true }), { color: false })).toContain(
      'Nothing to destroy: the state records no resources.',
    );
  });
});

describe('closestMatch', () => {
  it('picks the smallest edit distance, ties by sort order', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestMatch('abd', ['abc', 'xyz', 'abe'])).toBe('abc');
    expect(closestMatch('x', [])).toBeNull();
  });
});
