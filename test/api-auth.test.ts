/**
 * Authentication: client credentials at the token endpoint (fetch, cache,
 * expiry, single flight, one refresh after a 401) and the static token.
 */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CANARY_SECRET,
  CLIENT_ID,
  ORIGIN,
  POLICY_BODY,
  TARGET,
  errorBody,
  policyResponse,
  testClient,
  type TestClient,
  failure,
} from './api-helpers.js';
import { messageOf } from '../src/cli/run-words.js';

const PATH = '/api/v2/rate-limit-policies';
const CC = { kind: 'client_credentials', clientId: CLIENT_ID, clientSecret: CANARY_SECRET } as const;
let t: TestClient | undefined;

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
});

function tokenEndpoint(token: string, expiresIn = 86_400) {
  return nock(ORIGIN)
    .post('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CANARY_SECRET,
      audience: TARGET.audience,
    })
    .reply(200, { access_token: token, expires_in: expiresIn, token_type: 'Bearer' });
}

function api(token: string, status = 201, times = 1) {
  return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${token}` } })
    .post(PATH)
    .times(times)
    .reply(status, status === 201 ? policyResponse() : errorBody(status, 'Unauthorized', 'Invalid token'));
}

describe('client credentials', () => {
  it('fetches a token with the client id, secret and audience, then sends it as the bearer', async () => {
    t = testClient({ credentials: CC });
    const token = tokenEndpoint('fetched-token-1');
    const call = api('fetched-token-1');
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(token.isDone() && call.isDone()).toBe(true);
    expect(t.client.stats().requests).toBe(2);
  });

  it('reuses the cached token for later calls', async () => {
    t = testClient({ credentials: CC });
    tokenEndpoint('fetched-token-1');
    api('fetched-token-1', 201, 3);
    for (let i = 0; i < 3; i++) await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('fetches a new token once the cached one nears expiry', async () => {
    t = testClient({ credentials: CC });
    tokenEndpoint('fetched-token-1', 3600);
    api('fetched-token-1');
    await t.client.createRateLimitPolicy(POLICY_BODY);
    t.clock.advance(3600_000 - 60_000 - 1);
    api('fetched-token-1');
    await t.client.createRateLimitPolicy(POLICY_BODY);
    t.clock.advance(1);
    tokenEndpoint('fetched-token-2', 3600);
    api('fetched-token-2');
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('shares one token request among concurrent calls', async () => {
    t = testClient({ credentials: CC });
    const token = tokenEndpoint('fetched-token-1');
    api('fetched-token-1', 201, 5);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t!.client.createRateLimitPolicy(POLICY_BODY)),
    );
    expect(results.every((r) => r.outcome === 'created')).toBe(true);
    expect(token.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('fetches a new token once after a 401 and retries the call once', async () => {
    t = testClient({ credentials: CC });
    tokenEndpoint('stale-token-1');
    api('stale-token-1', 401);
    tokenEndpoint('fresh-token-2');
    api('fresh-token-2');
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(nock.pendingMocks()).toEqual([]);
    expect(t.client.stats()).toMatchObject({ requests: 4, retries: 1 });
  });

  it('refreshes only once when concurrent calls are refused with the same token', async () => {
    t = testClient({ credentials: CC });
    tokenEndpoint('stale-token-1');
    api('stale-token-1');
    await t.client.createRateLimitPolicy(POLICY_BODY); // learn that the tenant sends no rate headers
    api('stale-token-1', 401, 3);
    tokenEndpoint('fresh-token-2');
    api('fresh-token-2', 201, 3);
    const results = await Promise.all(
      Array.from({ length: 3 }, () => t!.client.createRateLimitPolicy(POLICY_BODY)),
    );
    expect(results.map((r) => r.outcome)).toEqual(['created', 'created', 'created']);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('gives up with API_UNAUTHORIZED when the fresh token is refused too', async () => {
    t = testClient({ credentials: CC });
    tokenEndpoint('stale-token-1');
    api('stale-token-1', 401);
    tokenEndpoint('fresh-token-2');
    api('fresh-token-2', 401);
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, retryable: false });
    expect(err.message).toMatch(/freshly fetched token was refused too/);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it.each([
    [
      401,
      { error: 'access_denied', error_description: 'Unauthorized' },
      'API_UNAUTHORIZED',
      /check the client id and secret/,
    ],
    [
      403,
      { error: 'access_denied', error_description: 'Service not enabled within domain' },
      'API_FORBIDDEN',
      /may request audience/,
    ],
  ])('reports a %i from the token endpoint as %s', async (status, body, code, hint) => {
    t = testClient({ credentials: CC });
    nock(ORIGIN).post('/oauth/token').reply(status, body);
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({
      code,
      status,
      operation: 'fetchToken',
      path: '/oauth/token',
      error: 'access_denied',
    });
    expect(err.message).toMatch(hint);
  });

  it('retries the token endpoint after a 503', async () => {
    t = testClient({ credentials: CC });
    nock(ORIGIN)
      .post('/oauth/token')
      .reply(503, errorBody(503, 'Service Unavailable', 'later'));
    tokenEndpoint('fetched-token-1');
    api('fetched-token-1');
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
  });

  it.each([[{ token_type: 'Bearer' }], ['<html>'], [{ access_token: '' }]])(
    'reports a token answer without a usable token (%j) as API_BAD_RESPONSE',
    async (body) => {
      t = testClient({ credentials: CC });
      nock(ORIGIN).post('/oauth/token').reply(200, body);
      const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
      expect(err).toMatchObject({ code: 'API_BAD_RESPONSE', operation: 'fetchToken' });
    },
  );
});

describe('static token', () => {
  it('does not try to refresh a refused static token and says how to fix it', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .reply(401, errorBody(401, 'Unauthorized', 'Expired token received for JSON Web Token validation'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, attempts: 1 });
    expect(messageOf(err)).toMatch(/TENANTFORM_TOKEN, AUTH0_ACCESS_TOKEN or --token-file/);
    expect(t.client.stats()).toMatchObject({ requests: 1, retries: 0 });
  });

  it('says, when a refused token overrode client credentials set beside it, how to use those instead', async () => {
    t = testClient({
      credentials: {
        kind: 'token',
        token: 'static-token',
        source: 'TENANTFORM_TOKEN',
        unused: 'TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET',
      },
    });
    nock(ORIGIN)
      .post(PATH)
      .reply(401, errorBody(401, 'Unauthorized', 'Invalid token'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err.message).toMatch(
      /to use the client credentials in TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET, which a token overrides, unset TENANTFORM_TOKEN/,
    );
  });

  it('names the missing scope on a 403', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .reply(403, errorBody(403, 'Forbidden', 'Insufficient scope', 'insufficient_scope'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err.message).toMatch(/create:rate_limit_policies/);
  });
});
