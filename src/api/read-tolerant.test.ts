/**
 * Reading tolerantly, at the HTTP level (undici MockAgent, so every answer
 * passes the client's response schemas): the service may add a field at any
 * level of any answer, list items in any order and leave out what an
 * envelope has nothing to say with (total, page, start, limit). Every read
 * path of tenantform — the kinds' lists (readTenant), the reference lists
 * (readReferences), the look-up by identity (findLive) and the answers of
 * create, update and get — reads such answers exactly as it reads the plain
 * ones: same resources, same attributes, same references, nothing extra kept.
 */
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { desired, permission, policy, profile } from '../../test/plan-builders.js';
import { referenceQueries } from '../plan/references.js';
import { operationsFor, rateLimitPolicy, tokenExchangeProfile, type KindModule } from '../resources/index.js';
import { createApiClient } from './client.js';
import { findLive, readTenant } from './read-tenant.js';
import { resolveTarget } from './target.js';

const json = { headers: { 'content-type': 'application/json' } };
let agent: MockAgent | null = null;

afterEach(async () => {
  await agent?.close();
  agent = null;
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A field tenantform does not know, itself holding every JSON type. */
const UNKNOWN: Json = { nested: { deep: [1, 'two', null, true, { leaf: 2.5 }] }, flag: false };

/** `value` with an unknown field added to every object at every level, and every array reversed. */
function decorated(value: Json): Json {
  if (Array.isArray(value)) return value.map(decorated).reverse();
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = { added_by_a_later_release: UNKNOWN };
  for (const [key, inner] of Object.entries(value).reverse()) out[key] = decorated(inner);
  return out;
}

const policies: Json[] = [
  {
    id: 'rlp_1',
    resource: 'oauth_authentication_api',
    consumer: 'client',
    consumer_selector: 'default',
    configuration: { action: 'block', limit: 10 },
  },
  {
    id: 'rlp_2',
    resource: 'oauth_authentication_api',
    consumer: 'client',
    consumer_selector: 'client_id:app1',
    configuration: { action: 'redirect', limit: 3, redirect_uri: 'https://example.com/slow' },
  },
];
const profiles: Json[] = [
  {
    id: 'tep_1',
    name: 'Partner',
    subject_token_type: 'urn:partner:token',
    action_id: 'act-1',
    type: 'custom_authentication',
  },
];
/** The items as the service sends them: description, resource_server_name and sources besides the two fields read. */
const permissions: Json[] = ['read:a', 'write:a'].map((name) => ({
  permission_name: name,
  description: `Can ${name}`,
  resource_server_name: 'API',
  resource_server_identifier: 'https://api/',
  sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
}));
const clients: Json[] = [
  { client_id: 'app1', name: 'App', app_type: 'spa', is_first_party: true, tenant: 't' },
];
const actions: Json[] = [
  { id: 'act-1', name: 'Exchange', supported_triggers: [{ id: 'custom-token-exchange', version: 'v1' }] },
];
const servers: Json[] = [
  { id: 'rs1', identifier: 'https://api/', name: 'API', scopes: [{ value: 'read:a' }, { value: 'write:a' }] },
];

/** The lists' answers by path, each as `shape` makes it from its items (one page each: fewer than asked for). */
function answers(shape: (key: string, items: Json[]) => Json): Record<string, Json> {
  return {
    '/api/v2/rate-limit-policies': shape('rate_limit_policies', policies),
    '/api/v2/token-exchange-profiles': shape('token_exchange_profiles', profiles),
    '/api/v2/users/auth0%7C1/permissions': shape('permissions', permissions),
    '/api/v2/clients': shape('clients', clients),
    '/api/v2/actions/actions': shape('actions', actions),
    '/api/v2/resource-servers': shape('resource_servers', servers),
  };
}

/** The envelopes tenantform's reads ask for, with every count. */
const plain = (key: string, items: Json[]): Json =>
  key === 'actions'
    ? { total: items.length, page: 0, per_page: 100, actions: items }
    : key.endsWith('policies') || key.endsWith('profiles')
      ? { [key]: items }
      : { start: 0, limit: 100, total: items.length, [key]: items };

function mocked(byPath: Record<string, Json>) {
  agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get('https://tenant.example.com');
  pool
    .intercept({ path: () => true, method: 'GET' })
    .reply(200, (opts) => byPath[opts.path.split('?')[0]!] ?? { statusCode: 404 }, json)
    .persist();
  const client = createApiClient({
    target: resolveTarget({ domain: 'tenant.example.com' }, {}),
    credentials: { kind: 'token', token: 't0k3n' },
    dispatcher: agent,
  });
  return { pool, client };
}

const full = (kind: KindModule) => operationsFor(kind, 'full').list;
/** The lists of the kinds the mocked tenant answers for (any other kind is left unread). */
const answered = (kind: KindModule) =>
  ['rate_limit_policy', 'token_exchange_profile', 'user_permission'].includes(kind.name)
    ? full(kind)
    : undefined;
const config = [
  desired('rate_limit_policy', policy('client_id:app1')),
  desired('token_exchange_profile', profile('urn:partner:token', { action_id: 'act-1' })),
  desired('user_permission', permission('auth0|1', 'https://api/', 'read:a')),
];

async function readAll(byPath: Record<string, Json>) {
  const { client } = mocked(byPath);
  try {
    return await readTenant(client.call, {
      listOf: answered,
      values: { user_id: ['auth0|1'] },
      references: referenceQueries(config),
    });
  } finally {
    await client.close();
  }
}

describe('reading answers that carry more than tenantform knows', () => {
  it('decorates at every level: the test data itself has an unknown field in every object', () => {
    const seen: string[] = [];
    const walk = (value: Json, path: string): void => {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
      else if (value !== null && typeof value === 'object') {
        if (path.includes('added_by_a_later_release')) return;
        if (!('added_by_a_later_release' in value)) seen.push(path);
        for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
      }
    };
    walk(decorated(answers(plain) as Json), '');
    expect(seen).toEqual([]);
  });

  it('reads every list alike with unknown fields at every level and the items in another order', async () => {
    const expected = await readAll(answers(plain));
    expect(expected.resources).toHaveLength(5);
    expect(expected.references.items.resource_server![0]!.members).toEqual(['read:a', 'write:a']);
    const read = await readAll(answers((key, items) => decorated(plain(key, items) as Json)));
    // The members of an API come in the order listed: the same set.
    const members = (r: typeof read) => [...r.references.items.resource_server![0]!.members!].sort();
    expect(members(read)).toEqual(members(expected));
    read.references.items.resource_server![0]!.members =
      expected.references.items.resource_server![0]!.members!;
    expect(read).toEqual(expected);
    // Nothing unknown reaches the attributes (so neither the state nor an export).
    expect(JSON.stringify(read)).not.toContain('added_by_a_later_release');
  });

  it.each([
    ['no total, page, start or limit', (key: string, items: Json[]) => ({ [key]: items })],
    ['per_page only', (key: string, items: Json[]) => ({ [key]: items, per_page: 50 })],
    [
      'the bare array of a list that takes include_totals (not the Actions: always an object)',
      (key: string, items: Json[]) =>
        ['permissions', 'clients', 'resource_servers'].includes(key) ? items : { [key]: items },
    ],
  ])('reads the envelope variant %s', async (_name, shape) => {
    const expected = await readAll(answers(plain));
    expect(await readAll(answers(shape))).toEqual(expected);
  });

  it('reads an offset list without totals to its end: a short page ends it, an empty one after a full one', async () => {
    const many: Json[] = Array.from({ length: 200 }, (_, i) => ({
      resource_server_identifier: 'https://api/',
      permission_name: `p${String(i).padStart(3, '0')}`,
    }));
    agent = new MockAgent();
    agent.disableNetConnect();
    const seen: string[] = [];
    agent
      .get('https://tenant.example.com')
      .intercept({ path: () => true, method: 'GET' })
      .reply(
        200,
        (opts) => {
          seen.push(opts.path);
          const page = Number(new URL(opts.path, 'https://x').searchParams.get('page'));
          // Sorted by name the other way round, and no counts at all.
          return { permissions: [...many].reverse().slice(page * 100, page * 100 + 100) };
        },
        json,
      )
      .persist();
    const client = createApiClient({
      target: resolveTarget({ domain: 'tenant.example.com' }, {}),
      credentials: { kind: 'token', token: 't0k3n' },
      dispatcher: agent,
    });
    const read = await readTenant(client.call, {
      listOf: (kind) => (kind.name === 'user_permission' ? full(kind) : undefined),
      values: { user_id: ['auth0|1'] },
    });
    expect(seen).toHaveLength(3);
    expect(read.resources.map((r) => r.attributes.permission_name)).toEqual(
      many.map((p) => (p as { permission_name: string }).permission_name),
    );
  });

  it('finds a resource by identity (import, a 409 on create) in a decorated list', async () => {
    const { client } = mocked(answers((key, items) => decorated(plain(key, items) as Json)));
    const attributes = {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'client_id:app1',
    };
    const { found } = await findLive(client.call, rateLimitPolicy, full(rateLimitPolicy)!, attributes);
    expect(found).toMatchObject({ id: 'rlp_2' });
    expect(found!.attributes.configuration).toEqual({
      action: 'redirect',
      limit: 3,
      redirect_uri: 'https://example.com/slow',
    });
    await client.close();
  });

  it('reads a created, updated and fetched object with unknown fields at every level', async () => {
    agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://tenant.example.com');
    const created = decorated({
      ...(policies[1] as object),
      created_at: '2026-01-01T00:00:00.000Z',
    } as Json) as object;
    pool.intercept({ path: '/api/v2/rate-limit-policies', method: 'POST' }).reply(201, created, json);
    pool.intercept({ path: '/api/v2/rate-limit-policies/rlp_2', method: 'PATCH' }).reply(200, created, json);
    pool.intercept({ path: '/api/v2/rate-limit-policies/rlp_2', method: 'GET' }).reply(200, created, json);
    pool
      .intercept({ path: '/api/v2/token-exchange-profiles/tep_1', method: 'PATCH' })
      .reply(200, decorated(profiles[0]!) as object, json);
    const client = createApiClient({
      target: resolveTarget({ domain: 'tenant.example.com' }, {}),
      credentials: { kind: 'token', token: 't0k3n' },
      dispatcher: agent,
    });
    const ops = operationsFor(rateLimitPolicy, 'full');
    const body = {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'client_id:app1',
    };
    const post = await client.call(ops.create, {}, { ...body, configuration: { action: 'block', limit: 1 } });
    if (post.outcome !== 'done') throw new Error('not created');
    expect(rateLimitPolicy.fromResponse(post.body)).toEqual({
      id: 'rlp_2',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const patch = await client.call(
      ops.update!,
      { id: 'rlp_2' },
      { configuration: { action: 'log', limit: 1 } },
    );
    expect(patch.outcome).toBe('done');
    const get = await client.call(ops.get!, { id: 'rlp_2' });
    if (get.outcome !== 'done') throw new Error('not read');
    expect(rateLimitPolicy.fromLive(get.body).attributes.configuration).toEqual({
      action: 'redirect',
      limit: 3,
      redirect_uri: 'https://example.com/slow',
    });
    const profilePatch = await client.call(
      operationsFor(tokenExchangeProfile, 'full').update!,
      { id: 'tep_1' },
      { name: 'Partner 2' },
    );
    expect(profilePatch).toMatchObject({ outcome: 'done', status: 200 });
    await client.close();
  });
});
