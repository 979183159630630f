/**
 * The reads of the reference lists at the HTTP level (undici MockAgent): the
 * exact requests each list sends (fixed fields and filters, paging, repeated
 * identifiers), one pass per list whatever the number of references, and the
 * answers checked against the lists' response schemas.
 */
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { desired, permission, policy, profile } from '../../test/plan-builders.js';
import { referenceQueries } from '../plan/references.js';
import { REFERENCE_LISTS, type DesiredResource } from '../resources/index.js';
import { createApiClient } from './client.js';
import { readReferences } from './read-tenant.js';
import { resolveTarget } from './target.js';

const json = { headers: { 'content-type': 'application/json' } };
let agent: MockAgent | null = null;

function mocked() {
  agent = new MockAgent();
  agent.disableNetConnect();
  const client = createApiClient({
    target: resolveTarget({ domain: 'tenant.example.com' }, {}),
    credentials: { kind: 'token', token: 't0k3n' },
    dispatcher: agent,
  });
  return { pool: agent.get('https://tenant.example.com'), client };
}

afterEach(async () => {
  await agent?.close();
  agent = null;
});

/** Answers every GET with `answer(path)`, recording each path. */
function recordGets(pool: ReturnType<MockAgent['get']>, answer: (path: string) => unknown) {
  const seen: string[] = [];
  pool
    .intercept({ path: () => true, method: 'GET' })
    .reply(
      200,
      (opts) => {
        seen.push(opts.path);
        return answer(opts.path);
      },
      json,
    )
    .persist();
  return seen;
}

const params = (path: string) => new URL(path, 'https://x').searchParams;

const clientPolicies = (ids: readonly string[]): DesiredResource[] =>
  ids.map((id) => desired('rate_limit_policy', policy(`client_id:${id}`)));

describe('reading the reference lists', () => {
  it('reads the applications once, with only the fields it uses, page by page to the total', async () => {
    const { pool, client } = mocked();
    const clients = Array.from({ length: 150 }, (_, i) => ({ client_id: `c${i}`, name: `App ${i}` }));
    const seen = recordGets(pool, (path) => {
      const page = Number(params(path).get('page'));
      return {
        start: page * 100,
        limit: 100,
        total: 150,
        clients: clients.slice(page * 100, page * 100 + 100),
      };
    });
    // 30 policies naming 3 applications: still one pass over the list.
    const config = clientPolicies(Array.from({ length: 30 }, (_, i) => `c${i % 3}`));
    const read = await readReferences(client.call, referenceQueries(config));
    expect(seen).toEqual([
      '/api/v2/clients?fields=client_id%2Cname%2Cis_first_party%2Capp_type&include_fields=true&per_page=100&page=0&include_totals=true',
      '/api/v2/clients?fields=client_id%2Cname%2Cis_first_party%2Capp_type&include_fields=true&per_page=100&page=1&include_totals=true',
    ]);
    expect(read).toMatchObject({ reads: 1, pages: 2 });
    expect(read.items.client).toHaveLength(150);
    expect(read.items.client![0]).toEqual({ key: 'c0', name: 'App 0', attributes: {} });
  });

  it('reads the deployed Actions of the custom-token-exchange trigger, without include_totals (the answer always has its total)', async () => {
    const { pool, client } = mocked();
    const actions = Array.from({ length: 120 }, (_, i) => ({
      id: `a${i}`,
      supported_triggers: [{ id: 'custom-token-exchange', version: 'v1' }],
    }));
    const seen = recordGets(pool, (path) => {
      const page = Number(params(path).get('page'));
      return { total: 120, page, per_page: 100, actions: actions.slice(page * 100, page * 100 + 100) };
    });
    const config = [desired('token_exchange_profile', profile('urn:a:b', { action_id: 'a7' }))];
    const read = await readReferences(client.call, referenceQueries(config));
    expect(seen).toEqual([
      '/api/v2/actions/actions?triggerId=custom-token-exchange&deployed=true&per_page=100&page=0',
      '/api/v2/actions/actions?triggerId=custom-token-exchange&deployed=true&per_page=100&page=1',
    ]);
    expect(read.items.action).toHaveLength(120);
    expect(read.items.action![0]!.attributes).toEqual({ triggers: ['custom-token-exchange'] });
  });

  it('reads only the APIs the config names, by repeated identifiers, 10 a request', async () => {
    const { pool, client } = mocked();
    const servers = Array.from({ length: 12 }, (_, i) => `https://api${String(i).padStart(2, '0')}/`);
    const seen = recordGets(pool, (path) => {
      const wanted = params(path).getAll('identifiers');
      const resource_servers = wanted.map((identifier) => ({ identifier, scopes: [{ value: 'read' }] }));
      return { start: 0, limit: 100, total: resource_servers.length, resource_servers };
    });
    const config = servers.flatMap((s) => [
      desired('user_permission', permission('auth0|1', s, 'read')),
      desired('user_permission', permission('auth0|2', s, 'read')),
    ]);
    const read = await readReferences(client.call, referenceQueries(config));
    expect(seen.map((p) => params(p).getAll('identifiers'))).toEqual([
      servers.slice(0, 10),
      servers.slice(10),
    ]);
    expect(params(seen[0]!).get('include_totals')).toBe('true');
    expect(read).toMatchObject({ reads: 2, pages: 2 });
    expect(read.items.resource_server!.map((r) => r.key)).toEqual(servers);
    expect(read.items.resource_server![0]!.members).toEqual(['read']);
  });

  it('reads nothing for a config without references (group selectors, a CIMD document URL)', () => {
    const config = [
      desired('rate_limit_policy', policy('default')),
      desired('rate_limit_policy', policy('third_party_clients')),
      desired('rate_limit_policy', policy('client_id:https://agent.example/client.json')),
    ];
    expect(referenceQueries(config)).toEqual([]);
  });

  it('names the scope a 403 asks for', async () => {
    const { pool, client } = mocked();
    pool
      .intercept({ path: (p) => p.startsWith('/api/v2/clients'), method: 'GET' })
      .reply(403, { statusCode: 403, error: 'Forbidden', message: 'Insufficient scope' }, json);
    await expect(readReferences(client.call, referenceQueries(clientPolicies(['c1'])))).rejects.toThrow(
      /read:clients/,
    );
  });

  describe('with skipDenied (the reference checks)', () => {
    const config = [
      ...clientPolicies(['c1']),
      desired('token_exchange_profile', profile('urn:acme:t', { action_id: 'a1' })),
    ];
    const actions = { total: 1, page: 0, per_page: 100, actions: [] };

    it('names a list the tenant refuses (403) in denied, with its scope, and reads the others', async () => {
      const { pool, client } = mocked();
      const sent: string[] = [];
      pool.intercept({ path: (p) => p.startsWith('/api/v2/clients'), method: 'GET' }).reply(
        403,
        (opts) => {
          sent.push(opts.path);
          return {
            statusCode: 403,
            error: 'Forbidden',
            message: 'Insufficient scope, expected any of: read:clients',
          };
        },
        json,
      );
      pool.intercept({ path: (p) => p.startsWith('/api/v2/actions/actions'), method: 'GET' }).reply(
        200,
        (opts) => {
          sent.push(opts.path);
          return actions;
        },
        json,
      );
      const read = await readReferences(client.call, referenceQueries(config), { skipDenied: true });
      expect(read.denied).toEqual({ client: 'read:clients' });
      expect(read.items).toEqual({ action: [] });
      expect(sent).toHaveLength(2);
      expect(read.pages).toBe(2);
    });

    it('still fails on a server error once the retries are spent', async () => {
      agent = new MockAgent();
      agent.disableNetConnect();
      const slept: number[] = [];
      const client = createApiClient({
        target: resolveTarget({ domain: 'tenant.example.com' }, {}),
        credentials: { kind: 'token', token: 't0k3n' },
        dispatcher: agent,
        retry: { maxAttempts: 2 },
        sleep: async (ms) => {
          slept.push(ms);
        },
      });
      const pool = agent.get('https://tenant.example.com');
      pool
        .intercept({ path: (p) => p.startsWith('/api/v2/clients'), method: 'GET' })
        .reply(503, { statusCode: 503, error: 'Service Unavailable', message: 'down' }, json)
        .persist();
      pool
        .intercept({ path: (p) => p.startsWith('/api/v2/actions/actions'), method: 'GET' })
        .reply(200, actions, json);
      await expect(
        readReferences(client.call, referenceQueries(config), { skipDenied: true }),
      ).rejects.toMatchObject({ code: 'API_SERVER_ERROR', status: 503 });
      expect(slept.length).toBeGreaterThan(0);
    });

    it('still fails on a network error', async () => {
      const { pool, client } = mocked();
      pool
        .intercept({ path: (p) => p.startsWith('/api/v2/clients'), method: 'GET' })
        .replyWithError(new Error('connection refused'))
        .persist();
      pool
        .intercept({ path: (p) => p.startsWith('/api/v2/actions/actions'), method: 'GET' })
        .reply(200, actions, json);
      await expect(
        readReferences(client.call, referenceQueries(config), { skipDenied: true, concurrency: 1 }),
      ).rejects.toMatchObject({ status: 0 });
    });
  });

  it('refuses an answer that breaks the list schema (an application without client_id)', async () => {
    const { pool, client } = mocked();
    pool
      .intercept({ path: (p) => p.startsWith('/api/v2/clients'), method: 'GET' })
      .reply(200, { start: 0, limit: 100, total: 1, clients: [{ name: 'no id' }] }, json);
    await expect(readReferences(client.call, referenceQueries(clientPolicies(['c1'])))).rejects.toMatchObject(
      {
        code: 'API_BAD_RESPONSE',
      },
    );
  });

  it('has one declaration per list, each with read-only operations of the full profile: the list, and a get by key', () => {
    for (const list of REFERENCE_LISTS) {
      expect(Object.keys(list.operations)).toEqual(['list', 'get']);
      expect(list.operations.list).toMatchObject({ method: 'GET', profile: 'full', pagination: 'offset' });
      expect(list.operations.get).toMatchObject({ method: 'GET', profile: 'full' });
    }
  });
});
