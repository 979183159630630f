import { describe, expect, it } from 'vitest';
import {
  KINDS,
  type Attributes,
  type DesiredResource,
  type KindName,
  type RecordedResource,
} from '../resources/index.js';
import { kindExample } from '../../test/helpers/kind-examples.js';
import {
  desired,
  permission,
  policy,
  profile,
  recorded,
  shuffled,
  stateDoc,
} from '../../test/plan-builders.js';
import { PlanError } from './errors.js';
import { applicableChanges, hasChanges, planChanges } from './planner.js';
import { reasonText } from './reasons.js';
import { PLAN_FORMAT_VERSION, type Change } from './types.js';

const SRC = { file: 'tenant.yaml', line: 4, col: 5 };

function only(want: DesiredResource[], have: RecordedResource[] | null): Change {
  const plan = planChanges(want, have === null ? null : stateDoc(have));
  expect(plan.changes).toHaveLength(1);
  return plan.changes[0]!;
}

/** A resource of each kind: its example's first. */
const samples = Object.fromEntries(KINDS.map((k) => [k.name, () => kindExample(k)])) as Record<
  KindName,
  () => Attributes
>;
const kinds = KINDS.map((k) => k.name);

describe('planChanges: one resource of each kind', () => {
  it.each(kinds)('creates a desired %s that is not in state', (kind) => {
    const c = only([desired(kind, samples[kind](), SRC)], null);
    expect(c).toMatchObject({ action: 'create', before: null, id: null, adopted: false, source: SRC });
    expect(c.after).toEqual(samples[kind]());
    expect(c.reason).toEqual({ code: 'create' });
    expect(reasonText(c)).toBe('not in state');
  });

  it.each(kinds)('leaves an identical %s alone', (kind) => {
    const c = only([desired(kind, samples[kind]())], [recorded(kind, samples[kind](), { id: 'x_1' })]);
    expect(c).toMatchObject({ action: 'no-op', id: 'x_1', adopted: false, reason: { code: 'no-op' } });
    expect(reasonText(c)).toBe('matches state');
  });

  it.each(kinds)('leaves an adopted, identical %s alone and notes that it was not verified', (kind) => {
    const c = only([desired(kind, samples[kind]())], [recorded(kind, samples[kind](), { adopted: true })]);
    expect(c.action).toBe('no-op');
    expect(c.adopted).toBe(true);
    expect(reasonText(c)).toContain('adopted; settings not verified');
  });

  it.each<[KindName, string | null, string]>([
    ['user_permission', null, 'no operation to remove a permission from a user'],
    ['token_exchange_profile', 'tep_1', 'no operation to update or delete a token exchange profile'],
  ])(
    'forgets a removed %s (its kind has no delete) and says it stays on the tenant',
    (kind, id, limitation) => {
      const c = only([], [recorded(kind, samples[kind](), { id })]);
      expect(c.action).toBe('forget');
      expect(reasonText(c)).toContain(limitation);
      expect(reasonText(c)).toContain('stays on the tenant');
      expect(c).toMatchObject({ after: null, source: null });
    },
  );

  it('deletes a removed policy whose id is known', () => {
    const c = only([], [recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]);
    expect(c).toMatchObject({
      action: 'delete',
      id: 'rlp_1',
      after: null,
      reason: { code: 'delete-because-no-config' },
    });
    expect(reasonText(c)).toBe('no longer in the configuration');
    expect(c.before).toEqual(policy('default'));
  });

  it('blocks deleting a policy adopted without an id, and says how to resolve it', () => {
    const c = only([], [recorded('rate_limit_policy', policy('default'), { adopted: true })]);
    expect(c.action).toBe('blocked');
    expect(c.adopted).toBe(true);
    expect(reasonText(c)).toContain('adopted without an id');
    expect(reasonText(c)).toContain(`tenantform import '${c.address}' <id>`);
    expect(reasonText(c)).toContain(`tenantform state rm '${c.address}'`);
  });
});

describe('planChanges: changed attributes', () => {
  it('replaces a policy whose limit changed and names the field', () => {
    const c = only(
      [desired('rate_limit_policy', policy('default', { action: 'block', limit: 500 }))],
      [recorded('rate_limit_policy', policy('default', { action: 'block', limit: 100 }), { id: 'rlp_1' })],
    );
    expect(c).toMatchObject({ action: 'replace', id: 'rlp_1' });
    expect(c.reason).toEqual({ code: 'replace-because-cannot-update', paths: ['configuration.limit'] });
    expect(reasonText(c)).toBe(
      'configuration.limit changed; rate limit policies have no update operation; a change deletes the policy ' +
        'and creates it again',
    );
    expect(c.before).toMatchObject({ configuration: { limit: 100 } });
    expect(c.after).toMatchObject({ configuration: { limit: 500 } });
  });

  it('names every changed field in order', () => {
    const c = only(
      [
        desired(
          'rate_limit_policy',
          policy('default', { action: 'redirect', limit: 5, redirect_uri: 'https://x.example' }),
        ),
      ],
      [recorded('rate_limit_policy', policy('default', { action: 'block', limit: 100 }), { id: 'rlp_1' })],
    );
    expect(c.reason).toMatchObject({
      paths: ['configuration.action', 'configuration.limit', 'configuration.redirect_uri'],
    });
    expect(reasonText(c)).toMatch(
      /^configuration\.action, configuration\.limit and configuration\.redirect_uri changed;/,
    );
  });

  it('replaces an adopted policy once import attached its id', () => {
    const c = only(
      [desired('rate_limit_policy', policy('default', { action: 'log', limit: 1 }))],
      [recorded('rate_limit_policy', policy('default'), { id: 'rlp_9', adopted: true })],
    );
    expect(c).toMatchObject({ action: 'replace', id: 'rlp_9', adopted: true });
  });

  it('blocks replacing a policy adopted without an id and points to import', () => {
    const c = only(
      [desired('rate_limit_policy', policy('default', { action: 'log', limit: 1 }))],
      [recorded('rate_limit_policy', policy('default'), { adopted: true })],
    );
    expect(c.action).toBe('blocked');
    expect(reasonText(c)).toContain('adopted without an id; run tenantform import');
    expect(reasonText(c)).toContain('then it can be replaced');
  });

  it.each([
    ['name', { name: 'renamed profile' }, 'name changed'],
    ['action_id', { action_id: 'act_999' }, 'action_id changed'],
    ['type', { type: 'other' }, 'type changed'],
    ['two fields', { name: 'renamed', action_id: 'act_2' }, 'action_id and name changed'],
  ])('blocks a token exchange profile whose %s changed', (_label, fields, words) => {
    const stt = 'urn:example:partner-token';
    const c = only(
      [desired('token_exchange_profile', profile(stt, fields))],
      [recorded('token_exchange_profile', profile(stt), { id: 'tep_1' })],
    );
    expect(c).toMatchObject({ action: 'blocked', id: 'tep_1', reason: { code: 'cannot-change' } });
    expect(reasonText(c)).toContain(words);
    expect(reasonText(c)).toContain('the API has no operation to update or delete a token exchange profile');
  });

  it('ignores key order, at the top and nested', () => {
    const c = only(
      [desired('rate_limit_policy', policy('default', { limit: 7, action: 'block' }))],
      [
        recorded(
          'rate_limit_policy',
          {
            configuration: { action: 'block', limit: 7 },
            consumer_selector: 'default',
            consumer: 'client',
            resource: 'oauth_authentication_api',
          },
          { id: 'rlp_1' },
        ),
      ],
    );
    expect(c.action).toBe('no-op');
  });

  it('treats a key holding undefined as absent', () => {
    const want = { ...policy('default'), extra: undefined };
    const c = only(
      [desired('rate_limit_policy', want)],
      [recorded('rate_limit_policy', policy('default'), { id: 'r' })],
    );
    expect(c.action).toBe('no-op');
  });
});

describe('planChanges: the plan as a whole', () => {
  const want = [
    desired('token_exchange_profile', profile('urn:b')),
    desired('user_permission', permission('auth0|u1', 'https://api', 'b')),
    desired('rate_limit_policy', policy('client_id:B')),
    desired('rate_limit_policy', policy('client_id:a')),
    desired('user_permission', permission('auth0|u1', 'https://api', 'a')),
  ];
  const have = [
    recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' }),
    recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_1' }),
    recorded('user_permission', permission('auth0|u1', 'https://api', 'b')),
  ];

  it('orders changes by kind, then by address compared code unit by code unit', () => {
    const plan = planChanges(want, stateDoc(have));
    expect(plan.changes.map((c) => c.address)).toEqual([
      'rate_limit_policy["oauth_authentication_api","client","client_id:B"]',
      'rate_limit_policy["oauth_authentication_api","client","client_id:a"]',
      'rate_limit_policy["oauth_authentication_api","client","default"]',
      'user_permission["auth0|u1","https://api","a"]',
      'user_permission["auth0|u1","https://api","b"]',
      'token_exchange_profile["urn:a"]',
      'token_exchange_profile["urn:b"]',
    ]);
  });

  it.each([1, 2, 3, 42, 1000])('gives the identical plan for inputs in any order (seed %i)', (seed) => {
    const base = planChanges(want, stateDoc(have));
    const again = planChanges(shuffled(want, seed), stateDoc(shuffled(have, seed + 1)));
    expect(JSON.stringify(again)).toBe(JSON.stringify(base));
  });

  it('counts actions and records the state it was made from', () => {
    const plan = planChanges(want, stateDoc(have, { lineage: 'abc', serial: 7 }));
    expect(plan.summary).toEqual({
      create: 4,
      update: 0,
      replace: 0,
      delete: 1,
      forget: 1,
      blocked: 0,
      no_op: 1,
    });
    expect(plan.state).toEqual({ lineage: 'abc', serial: 7 });
    expect(plan.format_version).toBe(PLAN_FORMAT_VERSION);
  });

  it('records no lineage and serial 0 when there is no state yet', () => {
    expect(planChanges([], null).state).toEqual({ lineage: null, serial: 0 });
  });

  it('does not modify its inputs', () => {
    const frozen = structuredClone(want).map((d) => Object.freeze(d));
    const doc = Object.freeze(stateDoc(structuredClone(have)));
    const before = JSON.stringify([frozen, doc]);
    planChanges(frozen, doc);
    expect(JSON.stringify([frozen, doc])).toBe(before);
  });

  it('shares one frozen reason among the changes whose reasons carry no data', () => {
    const plan = planChanges(
      [...want, desired('rate_limit_policy', policy('client_id:c'))],
      stateDoc([...have, recorded('rate_limit_policy', policy('client_id:gone'), { id: 'rlp_2' })]),
    );
    const byCode = (code: string) => plan.changes.filter((c) => c.reason.code === code).map((c) => c.reason);
    for (const code of ['create', 'delete-because-no-config']) {
      const reasons = byCode(code);
      expect(reasons.length).toBeGreaterThan(1);
      for (const reason of reasons) expect(reason).toBe(reasons[0]);
      expect(Object.isFrozen(reasons[0])).toBe(true);
    }
  });

  it('refuses an address declared twice, naming both places', () => {
    const a = desired('rate_limit_policy', policy('default'), { file: 'a.yaml', line: 2, col: 3 });
    const b = desired('rate_limit_policy', policy('default'), { file: 'b.yaml', line: 9, col: 3 });
    const attempt = () => planChanges([a, b], null);
    expect(attempt).toThrow(PlanError);
    expect(attempt).toThrow(/declared twice \(a\.yaml:2:3 and b\.yaml:9:3\)/);
  });

  it('refuses a state that records an address twice', () => {
    const r = recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' });
    expect(() => planChanges([], stateDoc([r, { ...r }]))).toThrow(/records .* twice/);
  });
});

describe('hasChanges and applicableChanges', () => {
  const noop = planChanges(
    [desired('rate_limit_policy', policy('default'))],
    stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]),
  );
  const blockedOnly = planChanges(
    [],
    stateDoc([recorded('rate_limit_policy', policy('x'), { adopted: true })]),
  );
  const mixed = planChanges(
    [desired('rate_limit_policy', policy('new'))],
    stateDoc([
      recorded('rate_limit_policy', policy('x'), { adopted: true }),
      recorded('user_permission', permission('u', 's', 'p')),
    ]),
  );

  it('reports no changes when every change is a no-op', () => {
    expect(hasChanges(noop)).toBe(false);
    expect(applicableChanges(noop)).toEqual([]);
  });

  it('counts a blocked change as a change that needs attention', () => {
    expect(hasChanges(blockedOnly)).toBe(true);
  });

  it('refuses blocked changes unless told to skip them', () => {
    expect(() => applicableChanges(mixed)).toThrow(/1 change is blocked/);
    expect(applicableChanges(mixed, { skipBlocked: true }).map((c) => c.action)).toEqual([
      'create',
      'forget',
    ]);
  });
});
