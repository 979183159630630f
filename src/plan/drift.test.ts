import { describe, expect, it } from 'vitest';
import { liveResource, type LiveSnapshot } from '../resources/index.js';
import { desired, permission, policy, profile, recorded, stateDoc } from '../../test/plan-builders.js';
import { planRefreshed, refreshState } from './drift.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import { checkSchema } from '../schemas/index.js';
import { flagOf } from '../cli/run-words.js';

const allLists: LiveSnapshot['reads'] = [
  { kind: 'rate_limit_policy', params: {} },
  { kind: 'token_exchange_profile', params: {} },
];

function snapshot(resources: LiveSnapshot['resources'], reads = allLists): LiveSnapshot {
  return { reads, resources };
}

describe('refreshState', () => {
  it('reports a policy changed outside tenantform with the fields that differ, and records the live settings', () => {
    const doc = stateDoc([
      recorded('rate_limit_policy', policy('default', { action: 'block', limit: 20 }), { id: 'rlp_1' }),
    ]);
    const live = snapshot([
      liveResource('rate_limit_policy', policy('default', { action: 'block', limit: 25 }), 'rlp_1'),
    ]);
    const r = refreshState(doc, live, []);
    expect(r.drift).toHaveLength(1);
    expect(r.drift[0]).toMatchObject({
      drift: 'changed',
      id: 'rlp_1',
      fields: ['configuration.limit'],
      desired: false,
    });
    expect(r.resources[0]!.attributes).toEqual(policy('default', { action: 'block', limit: 25 }));
    expect(r.entries).toEqual([{ op: 'put', resource: r.resources[0] }]);
  });

  it('drops a policy deleted outside tenantform and says whether the config still wants it', () => {
    const doc = stateDoc([
      recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' }),
      recorded('rate_limit_policy', policy('cimd_clients'), { id: 'rlp_2' }),
    ]);
    const r = refreshState(doc, snapshot([]), [desired('rate_limit_policy', policy('default'))]);
    expect(r.resources).toEqual([]);
    expect(r.entries.map((e) => e.op)).toEqual(['remove', 'remove']);
    expect(r.drift.map((d) => [d.drift, d.identity[2], d.desired])).toEqual([
      ['deleted', 'cimd_clients', false],
      ['deleted', 'default', true],
    ]);
  });

  it('lists a resource on the tenant but not in the state as unmanaged and leaves it out of the state', () => {
    const live = snapshot([liveResource('token_exchange_profile', profile('urn:other'), 'tep_9')]);
    const r = refreshState(stateDoc([]), live, []);
    expect(r.drift).toEqual([
      expect.objectContaining({ drift: 'unmanaged', id: 'tep_9', desired: false, recorded: null }),
    ]);
    expect(r.resources).toEqual([]);
    expect(r.entries).toEqual([]);
  });

  it('records an unmanaged resource whose identity the config declares, with its id and live settings', () => {
    const live = snapshot([
      liveResource('token_exchange_profile', profile('urn:a', { name: 'by hand' }), 'tep_9'),
    ]);
    const r = refreshState(null, live, [desired('token_exchange_profile', profile('urn:a'))]);
    expect(r.drift[0]).toMatchObject({ drift: 'unmanaged', desired: true });
    expect(r.resources).toEqual([
      expect.objectContaining({ id: 'tep_9', attributes: profile('urn:a', { name: 'by hand' }) }),
    ]);
    expect(r.resources[0]!.adopted).toBeUndefined();
  });

  it('keeps the permissions of users whose list was not read, and drops those of a user that was read', () => {
    const doc = stateDoc([
      recorded('user_permission', permission('auth0|1', 'https://api', 'read')),
      recorded('user_permission', permission('auth0|2', 'https://api', 'read')),
    ]);
    const r = refreshState(
      doc,
      snapshot([], [{ kind: 'user_permission', params: { user_id: 'auth0|1' } }]),
      [],
    );
    expect(r.resources.map((x) => x.attributes.user_id)).toEqual(['auth0|2']);
    expect(r.drift.map((d) => d.drift)).toEqual(['deleted']);
  });

  it('learns the id of an adopted record without calling it drift, and clears the adopted flag', () => {
    const doc = stateDoc([recorded('rate_limit_policy', policy('default'), { adopted: true })]);
    const r = refreshState(
      doc,
      snapshot([liveResource('rate_limit_policy', policy('default'), 'rlp_7')]),
      [],
    );
    expect(r.drift).toEqual([]);
    expect(r.resources[0]).toMatchObject({ id: 'rlp_7' });
    expect(r.resources[0]!.adopted).toBeUndefined();
    expect(r.entries).toHaveLength(1);
  });

  it('changes nothing when the tenant matches the state', () => {
    const doc = stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]);
    const r = refreshState(
      doc,
      snapshot([liveResource('rate_limit_policy', policy('default'), 'rlp_1')]),
      [],
    );
    expect(r).toEqual({ resources: doc.resources, entries: [], drift: [] });
  });

  it('counts another id for the same identity (deleted and created again by hand) as a change', () => {
    const doc = stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]);
    const r = refreshState(
      doc,
      snapshot([liveResource('rate_limit_policy', policy('default'), 'rlp_2')]),
      [],
    );
    expect(r.drift[0]).toMatchObject({ drift: 'changed', fields: ['id'], id: 'rlp_2' });
    expect(r.resources[0]!.id).toBe('rlp_2');
  });
});

describe('planRefreshed', () => {
  const config = [
    desired('rate_limit_policy', policy('default', { action: 'block', limit: 20 })),
    desired('rate_limit_policy', policy('third_party_clients')),
  ];
  const doc = stateDoc(
    [
      recorded('rate_limit_policy', policy('default', { action: 'block', limit: 20 }), { id: 'rlp_1' }),
      recorded('rate_limit_policy', policy('third_party_clients'), { id: 'rlp_2' }),
    ],
    { lineage: 'L', serial: 3 },
  );
  const live = snapshot([
    liveResource('rate_limit_policy', policy('default', { action: 'block', limit: 99 }), 'rlp_1'),
    liveResource('rate_limit_policy', policy('cimd_clients'), 'rlp_3'),
  ]);

  it('plans against what is live: a changed policy is changed back, a deleted one created again', () => {
    const { plan } = planRefreshed(config, doc, live);
    const actions = Object.fromEntries(plan.changes.map((c) => [c.identity[2], c.action]));
    expect(actions.default).not.toBe('no-op');
    expect(actions.third_party_clients).toBe('create');
    expect(actions.cimd_clients).toBeUndefined();
    expect(plan.state).toEqual({ lineage: 'L', serial: 3 });
    expect(plan.drift?.map((d) => d.drift)).toEqual(['unmanaged', 'changed', 'deleted']);
  });

  it('renders drift in text, markdown and JSON (the JSON matches plan.schema.json)', () => {
    const { plan } = planRefreshed(config, doc, live);
    const text = renderText(plan, { color: false });
    expect(text).toContain('Drift, read from the tenant: 1 changed, 1 deleted, 1 not managed.');
    expect(text).toMatch(
      /changed +rate limit policy rate_limit_policy\["oauth_authentication_api","client","default"\] \(id rlp_1\)/,
    );
    const driftPart = text.slice(0, text.indexOf('Symbols:'));
    expect(driftPart).toContain('-   limit: 20\n      +   limit: 99');
    expect(text).toContain(
      'deleted outside tenantform; it is in the configuration, so it will be created again',
    );
    expect(text).toContain('not managed by tenantform (not in the state); left alone');
    expect(text.indexOf('Drift')).toBeLessThan(text.indexOf('Symbols:'));
    const md = renderMarkdown(plan);
    expect(md).toContain('| Drift | Kind | Address | What it means |');
    expect(md).toContain('changed outside tenantform: rate_limit_policy');
    const json = JSON.parse(renderJson(plan));
    expect(checkSchema('plan', json)).toEqual([]);
    expect(json.drift[1]).toMatchObject({ drift: 'changed', fields: ['configuration.limit'], id: 'rlp_1' });
  });

  it('says so when the tenant matches the state', () => {
    const same = snapshot(doc.resources.map((r) => liveResource(r.kind, r.attributes, r.id)));
    const { plan } = planRefreshed(config, doc, same);
    expect(renderText(plan, { color: false })).toContain('Refreshed from the tenant: no drift');
    expect(plan.changes.every((c) => c.action === 'no-op')).toBe(true);
  });
});

describe('drift in markdown', () => {
  it('cuts a long drift list to its share of the comment, saying how many entries are left out', () => {
    const live = snapshot(
      Array.from({ length: 2000 }, (_, i) =>
        liveResource('rate_limit_policy', policy(`client_id:app-${String(i).padStart(4, '0')}`), `rlp_${i}`),
      ),
    );
    const { plan } = planRefreshed([], stateDoc([]), live);
    const md = renderMarkdown(plan, flagOf);
    expect(md.length).toBeLessThan(65_536);
    expect(md).toMatch(
      /_\d+ more drift entries not shown; run `tenantform plan --refresh` to see them all._/,
    );
    expect(md).toContain('2000 not managed');
  });
});
