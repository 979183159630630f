import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import {
  operationsFor,
  rateLimitPolicy,
  userPermission,
  type OperationDescriptor,
} from '../resources/index.js';
import { createApiClient } from './client.js';
import { resolveTarget } from './target.js';
import { LIST_PAGE_SIZE } from '../resources/index.js';
import { readList, type ListCall } from './pages.js';

const MAX_PAGE_SIZE = LIST_PAGE_SIZE.max;
import type { Query } from './types.js';

const checkpointList = {
  name: 'listThings',
  profile: 'full',
  method: 'GET',
  path: '/things',
  params: {},
  scope: 'read:things',
  success: [200],
  outcomes: {},
  pagination: 'checkpoint',
  itemsKey: 'things',
  pageSize: LIST_PAGE_SIZE,
} as OperationDescriptor;

const offsetList = {
  ...checkpointList,
  name: 'listUserThings',
  path: '/users/{user_id}/things',
  params: { user_id: 'user id' },
  pagination: 'offset',
} as OperationDescriptor;

/** A fake tenant holding `n` items, answering pages of at most `max`, recording every query. */
function tenant(n: number, options: { max?: number; totals?: boolean } = {}) {
  const all = Array.from({ length: n }, (_, i) => ({ n: i }));
  const queries: Query[] = [];
  const call: ListCall = async (op, _params, _body, query) => {
    const style = op.pagination;
    queries.push(query);
    const size = Math.min(Number(query.take ?? query.per_page), options.max ?? Infinity);
    if (style === 'checkpoint') {
      const start = query.from === undefined ? 0 : Number(query.from);
      const things = all.slice(start, start + size);
      const next = start + size < n ? String(start + size) : undefined;
      // Like the real service: a full last page still names a next one, which is empty.
      const body = { things, ...(next || things.length === size ? { next: next ?? String(n) } : {}) };
      if (start >= n) delete (body as { next?: string }).next;
      return { outcome: 'done', status: 200, body };
    }
    const start = Number(query.page) * size;
    const things = all.slice(start, start + size);
    const body =
      query.include_totals && options.totals !== false ? { start, limit: size, total: n, things } : things;
    return { outcome: 'done', status: 200, body };
  };
  return { call, queries, all };
}

describe('readList, checkpoint pages', () => {
  it.each([0, 1, 99, 100, 101, 250, 10_000])(
    'reads %i items in at most ceil(n/take)+1 requests',
    async (n) => {
      const t = tenant(n);
      const read = await readList(t.call, checkpointList, {});
      expect(read.items).toEqual(t.all);
      expect(read.pages).toBeLessThanOrEqual(Math.ceil(n / MAX_PAGE_SIZE) + 1);
      expect(t.queries[0]).toEqual({ take: MAX_PAGE_SIZE });
      expect(t.queries.slice(1).every((q) => typeof q.from === 'string')).toBe(true);
    },
  );

  it("asks for the largest page the operation's descriptor allows, and never more", async () => {
    const small = { ...checkpointList, pageSize: { default: 5, max: 20 } } as OperationDescriptor;
    const t = tenant(45);
    const read = await readList(t.call, small, {}, { pageSize: 1000 });
    expect(read.items).toEqual(t.all);
    expect(t.queries.map((q) => q.take)).toEqual([20, 20, 20]);
  });

  it('sends the filters with every page', async () => {
    const t = tenant(150);
    await readList(t.call, checkpointList, {}, { filters: { consumer_selector: 'default' } });
    expect(t.queries.every((q) => q.consumer_selector === 'default')).toBe(true);
  });

  it('refuses a cursor served twice instead of looping', async () => {
    const call: ListCall = async () => ({ outcome: 'done', status: 200, body: { things: [], next: 'same' } });
    await expect(readList(call, checkpointList, {})).rejects.toThrow(/cursor "same" a second time/);
  });

  it('refuses a page without its array', async () => {
    const call: ListCall = async () => ({ outcome: 'done', status: 200, body: { other: [] } });
    await expect(readList(call, checkpointList, {})).rejects.toMatchObject({ code: 'API_BAD_RESPONSE' });
  });
});

describe('readList, offset pages', () => {
  it.each([0, 1, 100, 101, 1000])('reads %i items, ending on the total without an empty page', async (n) => {
    const t = tenant(n);
    const read = await readList(t.call, offsetList, { user_id: 'auth0|1' });
    expect(read.items).toEqual(t.all);
    expect(read.pages).toBe(Math.max(1, Math.ceil(n / MAX_PAGE_SIZE)));
    expect(t.queries[0]).toEqual({ per_page: MAX_PAGE_SIZE, page: 0, include_totals: true });
  });

  it('ends on a short page when the answer is a bare array', async () => {
    const t = tenant(150, { totals: false });
    const read = await readList(t.call, offsetList, { user_id: 'auth0|1' });
    expect(read.items).toHaveLength(150);
    expect(read.pages).toBe(2);
  });

  it('follows a service that serves smaller pages than asked', async () => {
    const t = tenant(120, { max: 50 });
    const read = await readList(t.call, offsetList, { user_id: 'u' });
    expect(read.items).toHaveLength(120);
  });
});

describe('through the client', () => {
  function mocked() {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const client = createApiClient({
      target: resolveTarget({ domain: 'tenant.example.com' }, {}),
      credentials: { kind: 'token', token: 't0k3n' },
      dispatcher: agent,
    });
    return { agent, pool: agent.get('https://tenant.example.com'), client };
  }
  const json = { headers: { 'content-type': 'application/json' } };

  it("reads a user's permissions with the query after the encoded path, checked against the list schema", async () => {
    const { agent, pool, client } = mocked();
    const seen: string[] = [];
    pool.intercept({ path: (p) => (seen.push(p), true), method: 'GET' }).reply(
      200,
      {
        start: 0,
        limit: 100,
        total: 1,
        permissions: [{ resource_server_identifier: 'https://api/', permission_name: 'read' }],
      },
      json,
    );
    const list = operationsFor(userPermission, 'full').list!;
    const read = await readList(client.call, list, { user_id: 'auth0|1' });
    expect(read.items).toEqual([{ resource_server_identifier: 'https://api/', permission_name: 'read' }]);
    expect(seen).toContain('/api/v2/users/auth0%7C1/permissions?per_page=100&page=0&include_totals=true');
    await agent.close();
  });

  it('follows next through the policy list', async () => {
    const { agent, pool, client } = mocked();
    const policy = (n: number) => ({
      id: `rlp_${n}`,
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: `client_id:${n}`,
      configuration: { action: 'allow' },
    });
    const seen: string[] = [];
    pool
      .intercept({ path: (p) => (seen.push(p), p.includes('from=') === false), method: 'GET' })
      .reply(200, { rate_limit_policies: [policy(1)], next: 'c2' }, json);
    pool
      .intercept({ path: (p) => (seen.push(p), p.includes('from=c2')), method: 'GET' })
      .reply(200, { rate_limit_policies: [policy(2)] }, json);
    const read = await readList(client.call, operationsFor(rateLimitPolicy, 'full').list!, {});
    expect(read.items).toEqual([policy(1), policy(2)]);
    expect(read.pages).toBe(2);
    expect(seen.filter((p) => p.includes('take=100'))).toHaveLength(seen.length);
    await agent.close();
  });
});
