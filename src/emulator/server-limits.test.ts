import { afterEach, describe, expect, it } from 'vitest';
import { matchesSchema } from '../schemas/index.js';
import { UNLIMITED_BUCKET } from './rate-limit.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorOptions } from './types.js';

let emu: EmulatorHandle | undefined;
let clock = 1_700_000_000_000;

async function start(options: EmulatorOptions): Promise<EmulatorHandle> {
  clock = 1_700_000_000_000;
  emu = await startEmulator({ now: () => clock, ...options });
  return emu;
}
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const grants = { permissions: [{ resource_server_identifier: 'https://api', permission_name: 'read:x' }] };

function assign(e: EmulatorHandle, token: string | null = e.token) {
  return fetch(`${e.baseUrl}/users/auth0%7C1/permissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(grants),
  });
}

function limits(res: Response) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

describe('rate limit', () => {
  it('answers 429 with the error body and X-RateLimit-* headers once the bucket is empty', async () => {
    const e = await start({ rateLimit: { perSecond: 2 } });
    const first = await assign(e);
    expect(first.status).toBe(201);
    expect(limits(first)).toEqual({ limit: '2', remaining: '1', reset: '1700000001' });
    expect(limits(await assign(e))).toEqual({ limit: '2', remaining: '0', reset: '1700000001' });
    const refused = await assign(e);
    expect(refused.status).toBe(429);
    expect(limits(refused)).toEqual({ limit: '2', remaining: '0', reset: '1700000001' });
    expect(refused.headers.get('retry-after')).toBeNull();
    const body = await refused.json();
    expect(matchesSchema('error', body)).toBe(true);
    expect(body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
  });

  it('refills the continuous bucket from the injected clock', async () => {
    const e = await start({ rateLimit: { model: 'continuous', perSecond: 2, burst: 1 } });
    expect((await assign(e)).status).toBe(201);
    expect((await assign(e)).status).toBe(429);
    clock += 499;
    expect((await assign(e)).status).toBe(429);
    clock += 1;
    const again = await assign(e);
    expect(again.status).toBe(201);
    expect(limits(again)).toEqual({ limit: '1', remaining: '0', reset: '1700000001' });
  });

  it('with scope tenant (the default), shares one bucket among all clients of the tenant', async () => {
    const e = await start({
      rateLimit: { perSecond: 1 },
      clients: [{ clientId: 'other', clientSecret: 's', scopes: ['update:users'] }],
    });
    expect((await assign(e)).status).toBe(201);
    expect((await assign(e, e.issueToken({ clientId: 'other' }))).status).toBe(429);
  });

  it('with scope client, keeps one bucket per client and one shared bucket for requests without a valid token', async () => {
    const e = await start({
      rateLimit: { perSecond: 1, scope: 'client' },
      clients: [{ clientId: 'other', clientSecret: 's', scopes: ['update:users'] }],
    });
    expect((await assign(e)).status).toBe(201);
    expect((await assign(e)).status).toBe(429);
    expect((await assign(e, e.issueToken({ clientId: 'other' }))).status).toBe(201);
    expect((await assign(e, null)).status).toBe(401);
    expect((await assign(e, 'garbage')).status).toBe(429);
  });

  it.each([
    [
      'the continuous model: until one request has refilled',
      { model: 'continuous', perSecond: 0.5, burst: 1 },
      '2',
    ],
    ['the window model: until the next addition', { perWindow: 1, windowSec: 60, burst: 1 }, '23'],
  ] as const)('sends Retry-After only when asked to; %s', async (_name, rateLimit, seconds) => {
    const e = await start({ rateLimit, retryAfter: true });
    clock += 17_250;
    await assign(e);
    const refused = await assign(e);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(seconds);
  });

  it.each([
    ['a 401', (e: EmulatorHandle) => assign(e, null), 401],
    ['a 404', (e: EmulatorHandle) => fetch(`${e.baseUrl}/nowhere`), 404],
    ['a 405', (e: EmulatorHandle) => fetch(`${e.baseUrl}/token-exchange-profiles`), 405],
    [
      'a 400',
      (e: EmulatorHandle) =>
        fetch(`${e.baseUrl}/token-exchange-profiles`, {
          method: 'POST',
          headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
          body: '{}',
        }),
      400,
    ],
    [
      'a 204',
      async (e: EmulatorHandle) => {
        const created = await fetch(`${e.baseUrl}/rate-limit-policies`, {
          method: 'POST',
          headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            resource: 'oauth_authentication_api',
            consumer: 'client',
            consumer_selector: 'default',
            configuration: { action: 'allow' },
          }),
        });
        const { id } = (await created.json()) as { id: string };
        return fetch(`${e.baseUrl}/rate-limit-policies/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${e.token}` },
        });
      },
      204,
    ],
    [
      'a token endpoint answer',
      (e: EmulatorHandle) =>
        fetch(`${e.origin}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'client_credentials',
            client_id: 'x',
            client_secret: 'y',
            audience: '/api/v2/',
          }),
        }),
      401,
    ],
  ])('puts X-RateLimit-* headers on %s', async (_name, send, status) => {
    const e = await start({ rateLimit: { perSecond: 100 } });
    const res = await send(e);
    expect(res.status).toBe(status);
    const l = limits(res);
    expect(l.limit).toBe('100');
    expect(l.remaining).toMatch(/^\d+$/);
    expect(l.reset).toMatch(/^\d+$/);
  });

  it('announces a large, always full bucket when no limit is configured', async () => {
    const e = await start({});
    for (const token of [e.token, e.token, null]) {
      clock += 400;
      const res = await assign(e, token);
      expect(res.status).toBe(token ? 201 : 401);
      expect(limits(res)).toEqual({
        limit: String(UNLIMITED_BUCKET),
        remaining: String(UNLIMITED_BUCKET - 1),
        reset: String(Math.ceil(clock / 1000)),
      });
    }
  });
});
