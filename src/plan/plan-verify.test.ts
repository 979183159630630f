import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { desired, permission, policy, profile, recorded, stateDoc } from '../../test/plan-builders.js';
import type { DesiredResource, RecordedResource } from '../resources/index.js';
import { PlanError } from './errors.js';
import { planChanges } from './planner.js';
import { verifySavedPlan } from './plan-verify.js';
import { renderJson } from './render-json.js';
import type { Change, Plan } from './types.js';

const KEEP = policy('client_id:keep-me');
const GONE = policy('client_id:delete-me');
const ALICE = permission('auth0|alice', 'https://api.example.com/', 'read:reports');
const PROFILE = profile('urn:partner:legacy-token', { name: 'Partner SSO', action_id: 'act_1' });

/** The case: keep-me stays, delete-me is removed from the config, plus a permission and a profile. */
function scenario() {
  const state = stateDoc([
    recorded('rate_limit_policy', KEEP, { id: 'rlp_keep' }),
    recorded('rate_limit_policy', GONE, { id: 'rlp_delete' }),
    recorded('user_permission', ALICE),
  ]);
  const want = [
    desired('rate_limit_policy', KEEP),
    desired('user_permission', ALICE),
    desired('user_permission', permission('auth0|bob', 'https://api.example.com/', 'read:reports')),
    desired('token_exchange_profile', PROFILE),
  ];
  return { state, plan: planChanges(want, state) };
}

/** The plan as a saved file would carry it, edited. */
function edited(plan: Plan, address: string, edit: (change: Change) => void): Plan {
  const copy = structuredClone(plan);
  const change = copy.changes.find((c) => c.address.includes(address));
  if (!change) throw new Error(`no change at ${address}`);
  edit(change);
  return copy;
}

function mismatch(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanError) {
      expect(err.code).toBe('PLAN_MISMATCH');
      return err.message;
    }
    throw err;
  }
  throw new Error('expected PLAN_MISMATCH');
}

describe('verifySavedPlan', () => {
  it('returns an unedited plan unchanged', () => {
    const { state, plan } = scenario();
    expect(renderJson(verifySavedPlan(structuredClone(plan), state, 'p.plan'))).toBe(renderJson(plan));
  });

  it("refuses a delete carrying another resource's id (keep-me/delete-me), naming the change and both ids", () => {
    const { state, plan } = scenario();
    const attack = edited(plan, 'delete-me', (c) => (c.id = 'rlp_keep'));
    const message = mismatch(() => verifySavedPlan(attack, state, 'del.plan'));
    expect(message).toBe(
      'del.plan does not match the state it would be applied to; nothing was sent:\n' +
        '  changes[0] (rate_limit_policy["oauth_authentication_api","client","client_id:delete-me"]): ' +
        'id "rlp_keep" is not the id the state records for this resource (rlp_delete)\n' +
        'A saved plan must be applied as tenantform plan --out wrote it; make the plan again.',
    );
  });

  it.each<[string, string, (c: Change) => void, RegExp]>([
    [
      "a policy's consumer_selector that is not its address's",
      'keep-me',
      (c) => ((c.after as Record<string, unknown>).consumer_selector = 'client_id:other'),
      /after\.consumer_selector is "client_id:other" but the address says "client_id:keep-me"/,
    ],
    [
      "a permission's user_id that is not its address's",
      'auth0|bob',
      (c) => ((c.after as Record<string, unknown>).user_id = 'auth0|mallory'),
      /after\.user_id is "auth0\|mallory" but the address says "auth0\|bob"/,
    ],
    [
      'a limit beyond the API bounds',
      'keep-me',
      (c) => {
        c.after = { ...c.after, configuration: { action: 'block', limit: 20_000 } };
        c.action = 'replace';
      },
      /after\.configuration\.limit: limit must be at most 10000/,
    ],
    [
      'a field the API does not know',
      'legacy-token',
      (c) => ((c.after as Record<string, unknown>).secret = 'x'),
      /after\.secret: unknown property "secret"/,
    ],
    [
      'a permission with a field the API does not know',
      'auth0|bob',
      (c) => ((c.after as Record<string, unknown>).scope = 'x'),
      /after\.scope: unknown property "scope"/,
    ],
    [
      "a 'before' that is not the state's record",
      'delete-me',
      (c) => (c.before = { ...c.before, configuration: { action: 'allow' } }),
      /before differs from the record in the state/,
    ],
    ['an id on a create', 'legacy-token', (c) => (c.id = 'tep_x'), /id "tep_x" is not in the state/],
    ['a dropped id', 'delete-me', (c) => (c.id = null), /id null is not the id the state records/],
    [
      'a wrong adopted flag',
      'keep-me',
      (c) => (c.adopted = true),
      /adopted is true but the state says false/,
    ],
    [
      'an action the planner would not choose',
      'keep-me',
      (c) => (c.action = 'delete'),
      /action is delete but this after and the state give no-op/,
    ],
    [
      'a delete of something the state does not record',
      'delete-me',
      (c) => {
        c.address = c.address.replace('delete-me', 'ghost');
        c.identity = ['oauth_authentication_api', 'client', 'client_id:ghost'];
      },
      /the state records nothing at this address, so there is nothing to delete/,
    ],
  ])('refuses %s', (_name, address, edit, expected) => {
    const { state, plan } = scenario();
    expect(mismatch(() => verifySavedPlan(edited(plan, address, edit), state, 'p.plan'))).toMatch(expected);
  });

  it('takes ids, before, adopted, actions and reasons from the planner and the state, keeping sources', () => {
    const { state, plan } = scenario();
    const reworded = edited(plan, 'delete-me', (c) => (c.reason = { code: 'destroy' }));
    const verified = verifySavedPlan(reworded, state, 'p.plan');
    const gone = (p: Plan) => p.changes.find((c) => c.address.includes('delete-me'))!;
    expect(gone(verified).reason).toEqual(gone(plan).reason);
    expect(verified.changes.map((c) => c.source)).toEqual(plan.changes.map((c) => c.source));
  });

  it('lists at most ten problems', () => {
    const { state } = scenario();
    const many = Array.from({ length: 12 }, (_, i) =>
      desired('rate_limit_policy', policy(`client_id:c${i}`, { action: 'block', limit: 1 })),
    );
    const plan = planChanges(many, state);
    for (const c of plan.changes) if (c.action === 'create') c.id = 'rlp_forged';
    expect(mismatch(() => verifySavedPlan(plan, state, 'p.plan'))).toMatch(/\n {2}… and 2 more\n/);
  });

  // Schema-valid pools: any desired and recorded mix, any single edit.
  const selector = fc.constantFrom('default', 'cimd_clients', 'client_id:a', 'client_id:b');
  const configuration = fc.oneof(
    fc.constant({ action: 'allow' }),
    fc.record({ action: fc.constantFrom('block', 'log'), limit: fc.constantFrom(0, 10, 10_000) }),
  );
  const desiredArb: fc.Arbitrary<DesiredResource> = fc.oneof(
    fc.tuple(selector, configuration).map(([s, c]) => desired('rate_limit_policy', policy(s, c))),
    fc
      .tuple(fc.constantFrom('auth0|u1', 'auth0|u2'), fc.constantFrom('read', 'write'))
      .map(([u, p]) => desired('user_permission', permission(u, 'https://api.example.com/', p))),
    fc
      .tuple(fc.constantFrom('urn:test:a', 'urn:test:b'), fc.constantFrom('one', 'two'))
      .map(([t, name]) => desired('token_exchange_profile', profile(t, { name }))),
  );
  const recordedArb: fc.Arbitrary<RecordedResource> = fc
    .tuple(desiredArb, fc.boolean(), fc.nat(99))
    .map(([d, adopted, n]) =>
      recorded(d.kind, d.attributes, {
        id: adopted || d.kind === 'user_permission' ? null : `x_${n}`,
        adopted,
      }),
    );
  const unique = <T extends { address: string }>(items: T[]): T[] => [
    ...new Map(items.map((i) => [i.address, i])).values(),
  ];

  it('accepts every plan the planner makes, and refuses it after any edit to an id, before, action or adopted flag', () => {
    fc.assert(
      fc.property(
        fc.array(desiredArb, { maxLength: 8 }).map(unique),
        fc.array(recordedArb, { maxLength: 8 }).map(unique),
        fc.nat(),
        fc.constantFrom('id', 'before', 'action', 'adopted'),
        (want, have, pick, field) => {
          const state = stateDoc(have);
          const plan = planChanges(want, state);
          expect(renderJson(verifySavedPlan(structuredClone(plan), state, 'p'))).toBe(renderJson(plan));
          if (plan.changes.length === 0) return;
          const copy = structuredClone(plan);
          const change = copy.changes[pick % copy.changes.length]!;
          if (field === 'id') change.id = change.id === null ? 'x_forged' : null;
          else if (field === 'before') change.before = change.before === null ? { forged: true } : null;
          else if (field === 'adopted') change.adopted = !change.adopted;
          else change.action = change.action === 'delete' ? 'forget' : 'delete';
          expect(() => verifySavedPlan(copy, state, 'p')).toThrow(PlanError);
        },
      ),
      { seed: 20261123, numRuns: 300 },
    );
  });

  it('takes a --replace plan and a destroy plan as plan made them', () => {
    const { state } = scenario();
    const want = [desired('rate_limit_policy', KEEP), desired('user_permission', ALICE)];
    const forced = planChanges(want, state, {
      replace: [
        `rate_limit_policy${JSON.stringify(['oauth_authentication_api', 'client', 'client_id:keep-me'])}`,
      ],
    });
    expect(forced.changes.find((c) => c.address.includes('keep-me'))?.action).toBe('replace');
    expect(renderJson(verifySavedPlan(structuredClone(forced), state, 'p'))).toBe(renderJson(forced));
    const destroy = planChanges([], state, { destroy: true });
    expect(renderJson(verifySavedPlan(structuredClone(destroy), state, 'p'))).toBe(renderJson(destroy));
  });

  it('refuses a replace edited in where plan would refuse --replace (a permission has no delete)', () => {
    const { state, plan } = scenario();
    const message = mismatch(() =>
      verifySavedPlan(
        edited(plan, 'auth0|alice', (c) => (c.action = 'replace')),
        state,
        'p.plan',
      ),
    );
    expect(message).toContain('cannot replace it');
  });
});
