import { describe, expect, it } from 'vitest';
import { desired, policy } from '../../test/plan-builders.js';
import type { Attributes } from '../resources/index.js';
import { groupOf, policiesOf, scopeOf, blocksEverything, type Application } from './policy.js';
import { explainClients, governingPolicy, reachOf } from './precedence.js';

const TPA = 'tpa_2f8Qw1';
const CIMD = 'https://agent.example/oauth/client.json';
const PLAIN = 'Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC';
const OTHER = 'Mk3Vn8Qa1Zr6Tw4Xy9Lp2Bs7Hd5Fc0De';

function config(entries: [string, Attributes][]) {
  return policiesOf(entries.map(([selector, c]) => desired('rate_limit_policy', policy(selector, c))));
}

const block = (limit: number): Attributes => ({ action: 'block', limit });
const log = (limit: number): Attributes => ({ action: 'log', limit });
const redirect = (limit: number): Attributes => ({
  action: 'redirect',
  limit,
  redirect_uri: 'https://status.example/slow',
});
const allow: Attributes = { action: 'allow' };

const FULL = config([
  ['default', block(100)],
  ['third_party_clients', log(50)],
  ['cimd_clients', redirect(20)],
  [`client_id:${PLAIN}`, block(1500)],
  [`client_id:${TPA}`, allow],
  [`client_id:${OTHER}`, block(0)],
]);

describe('groupOf: group membership from the form of a client id', () => {
  it.each([
    [TPA, 'third_party_clients'],
    [CIMD, 'cimd_clients'],
    [PLAIN, null],
    ['http://agent.example/client.json', null],
    ['TPA_upper', null],
  ])('%s → %s', (id, group) => {
    expect(groupOf(id)).toBe(group);
  });
});

describe('scopeOf', () => {
  it.each([
    ['default', { level: 'default' }],
    ['third_party_clients', { level: 'group', group: 'third_party_clients' }],
    ['cimd_clients', { level: 'group', group: 'cimd_clients' }],
    [`client_id:${CIMD}`, { level: 'client', clientId: CIMD }],
    ['client_id:', null],
    ['everyone', null],
  ])('%s', (selector, scope) => {
    expect(scopeOf(selector)).toEqual(scope);
  });
});

/** [case, policies, client id, level, selector of the winner, action, limit, counter, overridden selectors] */
const TABLE: [
  string,
  ReturnType<typeof config>,
  string,
  string,
  string | null,
  string | null,
  number | null,
  string,
  string[],
][] = [
  [
    'own client policy wins over default',
    FULL,
    PLAIN,
    'client',
    `client_id:${PLAIN}`,
    'block',
    1500,
    'own',
    ['default'],
  ],
  [
    'own client policy wins over its group',
    FULL,
    TPA,
    'client',
    `client_id:${TPA}`,
    'allow',
    null,
    'own',
    ['third_party_clients', 'default'],
  ],
  [
    'limit 0 on a client blocks it',
    FULL,
    OTHER,
    'client',
    `client_id:${OTHER}`,
    'block',
    0,
    'own',
    ['default'],
  ],
  [
    'a third-party id falls to its group',
    FULL,
    'tpa_other',
    'group',
    'third_party_clients',
    'log',
    50,
    'shared',
    ['default'],
  ],
  [
    'a CIMD id falls to its group',
    FULL,
    CIMD,
    'group',
    'cimd_clients',
    'redirect',
    20,
    'shared',
    ['default'],
  ],
  ['any other id falls to default', FULL, 'someone-else', 'default', 'default', 'block', 100, 'own', []],
  [
    'a group member without a group policy falls to default',
    config([['default', log(10)]]),
    'tpa_x',
    'default',
    'default',
    'log',
    10,
    'own',
    [],
  ],
  ['no policy at all', config([]), PLAIN, 'none', null, null, null, 'none', []],
  [
    'no default and no match',
    config([['third_party_clients', block(5)]]),
    PLAIN,
    'none',
    null,
    null,
    null,
    'none',
    [],
  ],
  [
    'a CIMD client policy names the URI itself',
    config([
      ['cimd_clients', block(5)],
      [`client_id:${CIMD}`, log(40)],
    ]),
    CIMD,
    'client',
    `client_id:${CIMD}`,
    'log',
    40,
    'own',
    ['cimd_clients'],
  ],
];

describe('explainClients: the documented precedence', () => {
  it.each(TABLE)('%s', (_name, policies, clientId, level, selector, action, limit, counter, overridden) => {
    const [e] = explainClients(policies, [{ client_id: clientId }]);
    expect(e!.level).toBe(level);
    expect(e!.policy?.selector ?? null).toBe(selector);
    expect(e!.policy?.configuration.action ?? null).toBe(action);
    const got = e!.policy?.configuration;
    expect(got && 'limit' in got ? got.limit : null).toBe(limit);
    expect(e!.counter).toBe(counter);
    expect(e!.overridden.map((p) => p.selector)).toEqual(overridden);
  });

  it('keeps the applications in the order given, with their names', () => {
    const apps: Application[] = [
      { client_id: CIMD, name: 'Assistant' },
      { client_id: PLAIN, name: 'Web', app_type: 'spa', is_first_party: true },
    ];
    const out = explainClients(FULL, apps);
    expect(out.map((e) => e.application)).toEqual(apps);
    expect(out.map((e) => e.group)).toEqual(['cimd_clients', null]);
  });

  it('tells log (never blocks) from block and redirect at limit 0', () => {
    const policies = config([
      ['default', log(0)],
      ['third_party_clients', redirect(0)],
      ['cimd_clients', block(0)],
    ]);
    const out = explainClients(policies, [{ client_id: PLAIN }, { client_id: TPA }, { client_id: CIMD }]);
    expect(out.map((e) => blocksEverything(e.policy!.configuration))).toEqual([false, true, true]);
  });
});

describe('reachOf: the applications a policy governs', () => {
  const apps = [PLAIN, TPA, 'tpa_other', CIMD, 'plain-two'].map((client_id) => ({ client_id }));
  const find = (selector: string) => FULL.find((p) => p.selector === selector)!;

  it('default governs the applications nothing else names, each on its own counter', () => {
    const reach = reachOf(find('default'), FULL, apps);
    expect(reach.counter).toBe('per-application');
    expect(reach.governs.map((e) => e.application.client_id)).toEqual(['plain-two']);
    expect(reach.exceptions.map((p) => p.selector)).toEqual([
      'third_party_clients',
      'cimd_clients',
      `client_id:${PLAIN}`,
      `client_id:${TPA}`,
      `client_id:${OTHER}`,
    ]);
  });

  it('a group policy governs its members without a policy of their own, on one shared counter', () => {
    const reach = reachOf(find('third_party_clients'), FULL, apps);
    expect(reach.counter).toBe('shared');
    expect(reach.governs.map((e) => e.application.client_id)).toEqual(['tpa_other']);
    expect(reach.exceptions.map((p) => p.selector)).toEqual([`client_id:${TPA}`]);
  });

  it('a client policy governs its one application', () => {
    const reach = reachOf(find(`client_id:${PLAIN}`), FULL, apps);
    expect(reach.counter).toBe('own');
    expect(reach.governs.map((e) => e.application.client_id)).toEqual([PLAIN]);
    expect(reach.exceptions).toEqual([]);
  });
});

describe('governingPolicy: the policy explainClients names, without the explanation', () => {
  const partial = config([
    ['third_party_clients', log(50)],
    [`client_id:${PLAIN}`, block(1500)],
  ]);
  it.each([
    ['every level declared', FULL],
    ['no default, one group', partial],
    ['no policy at all', config([])],
  ])('agrees with explainClients for own, group, default and unnamed ids (%s)', (_name, policies) => {
    for (const id of [PLAIN, TPA, OTHER, CIMD, 'tpa_unnamed', 'https://other.example/c.json', 'unnamed']) {
      expect(governingPolicy(policies, id)).toBe(explainClients(policies, [{ client_id: id }])[0]!.policy);
    }
  });
});
