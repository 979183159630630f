import { describe, expect, it } from 'vitest';
import { operationsFor, rateLimitPolicy, type KindModule } from '../resources/index.js';
import type { ListCall } from './pages.js';
import { findLive, readTenant } from './read-tenant.js';

const full = (kind: KindModule) => operationsFor(kind, 'full').list;

/** The lists of the kinds this fake tenant answers for (any other kind is left unread). */
const answered = (kind: KindModule) =>
  ['rate_limit_policy', 'token_exchange_profile', 'user_permission'].includes(kind.name)
    ? full(kind)
    : undefined;

const policy = (selector: string, id: string) => ({
  id,
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration: { action: 'block', limit: 10 },
});

/** A tenant with two policies, one profile and permissions for auth0|1 only; records every request. */
function tenant() {
  const requests: string[] = [];
  const call: ListCall = async (op, params, _body, query) => {
    requests.push(`${op.name} ${JSON.stringify(params)} ${JSON.stringify(query)}`);
    if (op.name === 'listRateLimitPolicies') {
      const all = [policy('default', 'rlp_1'), policy('cimd_clients', 'rlp_2')];
      const filtered = query.consumer_selector
        ? all.filter((p) => p.consumer_selector === query.consumer_selector)
        : all;
      return { outcome: 'done', status: 200, body: { rate_limit_policies: filtered } };
    }
    if (op.name === 'listTokenExchangeProfiles') {
      const profile = {
        id: 'tep_1',
        name: 'P',
        subject_token_type: 'urn:p:t',
        action_id: 'a',
        type: 'custom_authentication',
      };
      return { outcome: 'done', status: 200, body: { token_exchange_profiles: [profile] } };
    }
    const permissions =
      params.user_id === 'auth0|1'
        ? [{ resource_server_identifier: 'https://api/', permission_name: 'read' }]
        : [];
    return {
      outcome: 'done',
      status: 200,
      body: { start: 0, limit: 100, total: permissions.length, permissions },
    };
  };
  return { call, requests };
}

describe('readTenant', () => {
  it('reads each list once and each named user once, and names every read', async () => {
    const t = tenant();
    const live = await readTenant(t.call, { listOf: answered, values: { user_id: ['auth0|1', 'auth0|2'] } });
    expect(t.requests).toHaveLength(4);
    expect(live.pages).toBe(4);
    expect(live.reads).toEqual([
      { kind: 'rate_limit_policy', params: {} },
      { kind: 'token_exchange_profile', params: {} },
      { kind: 'user_permission', params: { user_id: 'auth0|1' } },
      { kind: 'user_permission', params: { user_id: 'auth0|2' } },
    ]);
    expect(live.resources.map((r) => [r.address, r.id])).toEqual([
      ['rate_limit_policy["oauth_authentication_api","client","cimd_clients"]', 'rlp_2'],
      ['rate_limit_policy["oauth_authentication_api","client","default"]', 'rlp_1'],
      ['token_exchange_profile["urn:p:t"]', 'tep_1'],
      ['user_permission["auth0|1","https://api/","read"]', null],
    ]);
    expect(live.resources[0]!.attributes).toEqual({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'cimd_clients',
      configuration: { action: 'block', limit: 10 },
    });
  });

  it('reads no permissions when no user is named', async () => {
    const t = tenant();
    const live = await readTenant(t.call, { listOf: answered, values: { user_id: [] } });
    expect(t.requests).toHaveLength(2);
    expect(live.reads.map((r) => r.kind)).toEqual(['rate_limit_policy', 'token_exchange_profile']);
  });

  it('reads nothing under a profile without list operations', async () => {
    const t = tenant();
    const live = await readTenant(t.call, {
      listOf: (kind) => operationsFor(kind, 'spec').list,
      values: { user_id: ['auth0|1'] },
    });
    expect(t.requests).toEqual([]);
    expect(live).toEqual({
      reads: [],
      resources: [],
      pages: 0,
      references: { items: {} },
      referenceReads: 0,
    });
  });
});

describe('findLive', () => {
  it('finds a policy by its identity with the list filtered by it', async () => {
    const t = tenant();
    const wanted = { resource: 'oauth_authentication_api', consumer: 'client', consumer_selector: 'default' };
    const { found } = await findLive(t.call, rateLimitPolicy, full(rateLimitPolicy)!, wanted);
    expect(found).toMatchObject({ id: 'rlp_1' });
    expect(t.requests[0]).toContain('"consumer_selector":"default"');
  });

  it('answers null when the tenant has none', async () => {
    const t = tenant();
    const wanted = {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'third_party_clients',
    };
    expect((await findLive(t.call, rateLimitPolicy, full(rateLimitPolicy)!, wanted)).found).toBeNull();
  });
});
