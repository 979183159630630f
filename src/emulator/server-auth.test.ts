import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kindScopes } from '../../test/helpers/kind-examples.js';
import { matchesSchema } from '../schemas/index.js';
import { signJwt, type AccessClaims } from './jwt.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle } from './types.js';

let emu: EmulatorHandle;
let clock = 1_700_000_000_000;

beforeEach(async () => {
  clock = 1_700_000_000_000;
  emu = await startEmulator({
    now: () => clock,
    tokenLifetimeSec: 3600,
    clients: [
      { clientId: 'ci-bot', clientSecret: 'ci-secret', scopes: ['create:rate_limit_policies'] },
      {
        clientId: 'local-app',
        clientSecret: 'local-secret',
        scopes: ['create:rate_limit_policies'],
        global: false,
      },
    ],
  });
});
afterEach(async () => {
  await emu.stop();
});

function tokenRequest(
  body: Record<string, string>,
  as: 'json' | 'form' = 'form',
  path = '/oauth/token',
  extra = {},
) {
  const headers = {
    'content-type': as === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
    ...extra,
  };
  const text = as === 'json' ? JSON.stringify(body) : new URLSearchParams(body).toString();
  return fetch(`${emu.origin}${path}`, { method: 'POST', headers, body: text });
}

function createPolicy(authorization: string | undefined) {
  return fetch(`${emu.baseUrl}/rate-limit-policies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'default',
      configuration: { action: 'allow' },
    }),
  });
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('token endpoint', () => {
  it.each([
    ['a form body at /oauth/token', 'form', '/oauth/token'],
    ['a JSON body at /oauth/token/', 'json', '/oauth/token/'],
  ] as const)('grants a client-credentials token for %s', async (_name, as, path) => {
    const audience = `${emu.origin}/api/v2/`;
    const body = {
      grant_type: 'client_credentials',
      client_id: emu.clientId,
      client_secret: emu.clientSecret,
      audience,
    };
    const res = await tokenRequest(body, as, path);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const json = (await res.json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
      scope: string;
    };
    expect(json).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(json.scope.split(' ').sort()).toEqual(kindScopes('spec'));
    expect(claimsOf(json.access_token)).toMatchObject({
      iss: `${emu.origin}/`,
      sub: `${emu.clientId}@clients`,
      aud: audience,
      azp: emu.clientId,
      gty: 'client-credentials',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    expect((await createPolicy(`Bearer ${json.access_token}`)).status).toBe(201);
  });

  it('accepts the bare /api/v2/ audience the spec names and HTTP Basic client credentials', async () => {
    const basic = Buffer.from('ci-bot:ci-secret').toString('base64');
    const res = await tokenRequest(
      { grant_type: 'client_credentials', audience: '/api/v2/' },
      'form',
      '/oauth/token',
      {
        authorization: `Basic ${basic}`,
      },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe('create:rate_limit_policies');
  });

  it('grants only the requested scopes', async () => {
    const res = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: emu.clientId,
      client_secret: emu.clientSecret,
      audience: '/api/v2/',
      scope: 'update:users',
    });
    const { access_token } = (await res.json()) as { access_token: string };
    expect(claimsOf(access_token).scope).toBe('update:users');
    expect((await createPolicy(`Bearer ${access_token}`)).status).toBe(403);
  });

  it.each([
    [
      'a wrong secret',
      { client_id: 'ci-bot', client_secret: 'nope', audience: '/api/v2/' },
      401,
      'access_denied',
    ],
    [
      'an unknown client',
      { client_id: 'ghost', client_secret: 'x', audience: '/api/v2/' },
      401,
      'access_denied',
    ],
    ['no credentials', { audience: '/api/v2/' }, 401, 'access_denied'],
    [
      'a wrong audience',
      { client_id: 'ci-bot', client_secret: 'ci-secret', audience: 'https://other/api/v2/' },
      403,
      'access_denied',
    ],
    ['no audience', { client_id: 'ci-bot', client_secret: 'ci-secret' }, 403, 'access_denied'],
    [
      'a scope the client lacks',
      { client_id: 'ci-bot', client_secret: 'ci-secret', audience: '/api/v2/', scope: 'update:users' },
      403,
      'access_denied',
    ],
  ])('refuses %s with %i', async (_name, params, status, code) => {
    const res = await tokenRequest({ grant_type: 'client_credentials', ...params });
    expect(res.status).toBe(status);
    const body = (await res.json()) as Record<string, unknown>;
    expect(matchesSchema('error', body)).toBe(true);
    expect(body).toMatchObject({ statusCode: status, error: code, errorCode: code });
    expect(JSON.stringify(body)).not.toContain('ci-secret');
  });

  it.each([
    ['no grant_type', {}, 'invalid_request'],
    ['another grant type', { grant_type: 'password' }, 'unsupported_grant_type'],
  ])('answers 400 for %s', async (_name, params, code) => {
    const res = await tokenRequest(params, 'json');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: code });
  });
});

describe('bearer tokens on the API', () => {
  it.each([
    ['no Authorization header', () => undefined],
    ['another scheme', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['a token that is not a JWT', () => 'Bearer not-a-jwt'],
    ['a tampered payload', () => `Bearer ${tamper(emu.token)}`],
    ['a token signed by another key', () => `Bearer ${foreignToken()}`],
    ['a token with alg none', () => `Bearer ${unsignedToken()}`],
    [
      'a token for an unknown client',
      () => `Bearer ${emu.issueToken({ clientId: 'ghost', scopes: ['create:rate_limit_policies'] })}`,
    ],
    ['a token of a client that is not global', () => `Bearer ${emu.issueToken({ clientId: 'local-app' })}`],
  ])('answers 401 for %s', async (_name, header) => {
    const res = await createPolicy(header());
    expect(res.status).toBe(401);
    const body = (await res.json()) as Record<string, unknown>;
    expect(matchesSchema('error', body)).toBe(true);
    expect(body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('answers 401 once the token has expired, by the injected clock', async () => {
    const token = emu.issueToken({ expiresInSec: 60 });
    expect((await createPolicy(`Bearer ${token}`)).status).toBe(201);
    clock += 60_000;
    const res = await createPolicy(`Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ message: 'Expired token' });
  });

  it('says the client is not global', async () => {
    const res = await createPolicy(`Bearer ${emu.issueToken({ clientId: 'local-app' })}`);
    expect(await res.json()).toMatchObject({ errorCode: 'client_not_global' });
  });
});

function tamper(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  claims.scope = `${String(claims.scope)} create:clients`;
  return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
}

function foreignToken(): string {
  return signJwt(claimsOf(emu.token) as unknown as AccessClaims, 'another-secret');
}

function unsignedToken(): string {
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  return `${header}.${emu.token.split('.')[1]}.AAAA`;
}
