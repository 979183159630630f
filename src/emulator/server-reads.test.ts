import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { referenceSeed } from '../../test/helpers/reference-seed.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, RateLimitPolicy, TokenExchangeProfile } from './types.js';

let emu: EmulatorHandle;
let clock = 1_700_000_000_000;

beforeEach(async () => {
  clock = 1_700_000_000_000;
  emu = await startEmulator({
    api: 'full',
    now: () => clock,
    users: ['auth0|1', 'auth0|2'],
    seed: referenceSeed({
      actions: ['a8f1c2d4-7e9b-4c3a-9f0e-1b2c3d4e5f60'],
      permissions: Array.from(
        { length: 5 },
        (_, i) => ['https://api.example.com/', `read:thing${i}`] as const,
      ),
    }),
  });
});
afterEach(async () => {
  await emu.stop();
});

async function send(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emu.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

const selectors = ['default', 'third_party_clients', 'client_id:a', 'client_id:b', 'client_id:c'];

async function createPolicies(): Promise<RateLimitPolicy[]> {
  const made: RateLimitPolicy[] = [];
  for (const [i, consumer_selector] of selectors.entries()) {
    clock += 1000;
    const res = await send('POST', '/rate-limit-policies', {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector,
      configuration: { action: 'block', limit: 10 + i },
    });
    made.push(res.body as RateLimitPolicy);
  }
  return made;
}

/** Every page of a checkpoint list, following next. */
async function allPages(path: string, key: string, take: number) {
  const pages: { items: { id: string }[]; next?: string }[] = [];
  let from: string | undefined;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await send(
      'GET',
      `${path}${sep}take=${take}${from ? `&from=${encodeURIComponent(from)}` : ''}`,
    );
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(body.next === undefined ? [key] : ['next', key].sort());
    pages.push({ items: body[key] as { id: string }[], next: body.next as string | undefined });
    if (body.next === undefined) return pages;
    from = body.next as string;
  }
}

describe('reads under --api full', () => {
  it('lists policies in checkpoint pages: next on every page but the last', async () => {
    const made = await createPolicies();
    const pages = await allPages('/rate-limit-policies', 'rate_limit_policies', 2);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.next === undefined)).toEqual([false, false, true]);
    expect(pages.flatMap((p) => p.items)).toEqual(made);
    const exact = await allPages('/rate-limit-policies', 'rate_limit_policies', 5);
    expect(exact).toHaveLength(1);
    const all = await send('GET', '/rate-limit-policies');
    expect(all.body).toEqual({ rate_limit_policies: made });
  });

  it('does not repeat or skip a policy when one already served is deleted between pages', async () => {
    const made = await createPolicies();
    const first = (await send('GET', '/rate-limit-policies?take=2')).body as { next: string };
    expect((await send('DELETE', `/rate-limit-policies/${made[0]!.id}`)).status).toBe(204);
    const second = await send('GET', `/rate-limit-policies?take=2&from=${encodeURIComponent(first.next)}`);
    expect((second.body as { rate_limit_policies: RateLimitPolicy[] }).rate_limit_policies).toEqual(
      made.slice(2, 4),
    );
  });

  it('filters the policy list by resource, consumer and consumer_selector', async () => {
    const made = await createPolicies();
    const one = await send(
      'GET',
      '/rate-limit-policies?resource=oauth_authentication_api&consumer=client&consumer_selector=client_id%3Ab',
    );
    expect(one.body).toEqual({ rate_limit_policies: [made[3]] });
    const none = await send('GET', '/rate-limit-policies?consumer_selector=client_id%3Ax');
    expect(none.body).toEqual({ rate_limit_policies: [] });
    const byResource = await send('GET', '/rate-limit-policies?resource=oauth_authentication_api&take=100');
    expect((byResource.body as { rate_limit_policies: unknown[] }).rate_limit_policies).toHaveLength(5);
  });

  it('gets a policy by id; 404 for an unknown id, 400 for one too long', async () => {
    const [policy] = await createPolicies();
    expect(await send('GET', `/rate-limit-policies/${policy!.id}`)).toMatchObject({
      status: 200,
      body: policy,
    });
    expect(await send('GET', '/rate-limit-policies/rlp_unknown')).toMatchObject({
      status: 404,
      body: { statusCode: 404, errorCode: 'inexistent_rate_limit_policy' },
    });
    expect(await send('GET', `/rate-limit-policies/rlp_${'x'.repeat(23)}`)).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_uri' },
    });
  });

  it('lists and gets token exchange profiles', async () => {
    const made: TokenExchangeProfile[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await send('POST', '/token-exchange-profiles', {
        name: `Profile ${i}`,
        subject_token_type: `urn:example:token-${i}`,
        action_id: 'a8f1c2d4-7e9b-4c3a-9f0e-1b2c3d4e5f60',
        type: 'custom_authentication',
      });
      made.push(res.body as TokenExchangeProfile);
    }
    const pages = await allPages('/token-exchange-profiles', 'token_exchange_profiles', 2);
    expect(pages.flatMap((p) => p.items)).toEqual(made);
    expect(await send('GET', `/token-exchange-profiles/${made[1]!.id}`)).toMatchObject({
      status: 200,
      body: made[1],
    });
    // The service's own 404 for a profile: no errorCode (observed).
    expect(await send('GET', '/token-exchange-profiles/tep_unknown')).toMatchObject({
      status: 404,
      body: { statusCode: 404, error: 'Not Found', message: 'Token exchange profile not found.' },
    });
    expect((await send('GET', '/token-exchange-profiles/tep_unknown')).body).not.toHaveProperty('errorCode');
  });

  it('lists a user’s permissions in offset pages, as an array or with include_totals as an object', async () => {
    const assigned = Array.from({ length: 5 }, (_, i) => ({
      resource_server_identifier: 'https://api.example.com/',
      permission_name: `read:thing${4 - i}`,
    }));
    expect((await send('POST', '/users/auth0%7C1/permissions', { permissions: assigned })).status).toBe(201);
    // As the service lists them (observed): sorted by name, with the API's name, a description and the sources.
    const grants = [...assigned].reverse().map((g) => ({
      permission_name: g.permission_name,
      description: '',
      resource_server_name: 'API https://api.example.com/',
      resource_server_identifier: g.resource_server_identifier,
      sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
    }));
    expect((await send('GET', '/users/auth0%7C1/permissions')).body).toEqual(grants);
    expect((await send('GET', '/users/auth0%7C1/permissions?per_page=2&page=2')).body).toEqual([grants[4]]);
    expect(
      (await send('GET', '/users/auth0%7C1/permissions?per_page=2&page=1&include_totals=true')).body,
    ).toEqual({
      start: 2,
      limit: 2,
      total: 5,
      permissions: grants.slice(2, 4),
    });
    expect((await send('GET', '/users/auth0%7C2/permissions?include_totals=true')).body).toEqual({
      start: 0,
      limit: 50,
      total: 0,
      permissions: [],
    });
    expect(await send('GET', '/users/auth0%7Cnobody/permissions')).toMatchObject({
      status: 404,
      body: { errorCode: 'inexistent_user' },
    });
  });

  it('refuses a malformed query with a 400 naming the parameter', async () => {
    expect(await send('GET', '/rate-limit-policies?take=1000')).toMatchObject({
      status: 400,
      body: { statusCode: 400, errorCode: 'invalid_query_string', message: expect.stringContaining('take') },
    });
    expect(await send('GET', '/token-exchange-profiles?from=garbage')).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('from') },
    });
    expect(await send('GET', '/users/auth0%7C1/permissions?include_totals=1')).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('include_totals') },
    });
  });

  it('sends X-RateLimit-* on reads too, and demands the read scope', async () => {
    const res = await send('GET', '/rate-limit-policies');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const narrow = emu.issueToken({ scopes: ['read:token_exchange_profiles'] });
    const refused = await fetch(`${emu.baseUrl}/rate-limit-policies`, {
      headers: { authorization: `Bearer ${narrow}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      message: expect.stringContaining('read:rate_limit_policies'),
    });
  });
});

describe('reads under --api spec', () => {
  it('are not served: 405 on the paths that have a POST or DELETE', async () => {
    const spec = await startEmulator({});
    try {
      const list = await fetch(`${spec.baseUrl}/rate-limit-policies`, {
        headers: { authorization: `Bearer ${spec.token}` },
      });
      expect(list.status).toBe(405);
      expect(list.headers.get('allow')).toBe('POST');
      await list.arrayBuffer();
    } finally {
      await spec.stop();
    }
  });
});
