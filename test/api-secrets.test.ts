/**
 * A canary token and a canary client secret never leave the client: not in
 * debug lines, error messages, String(err), JSON.stringify(err), the stack or
 * any enumerable property of a thrown error, even when the server echoes them.
 */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../src/api/index.js';
import {
  CANARY_SECRET,
  CANARY_TOKEN,
  CLIENT_ID,
  ORIGIN,
  POLICY_BODY,
  PROFILE_BODY,
  errorBody,
  testClient,
  type TestClient,
} from './api-helpers.js';

const FETCHED_CANARY = 'fetched-canary-token-5e6f7a8b9c';
const CANARIES = [CANARY_TOKEN, CANARY_SECRET, FETCHED_CANARY];
let t: TestClient | undefined;

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
});

/** Every string a user or a log could ever see of this error. */
function exposures(err: unknown): string[] {
  const e = err as Error;
  const own = Object.entries(e).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [e.message, String(e), JSON.stringify(e), e.stack ?? '', ...own];
}

function expectClean(texts: string[]): void {
  for (const text of texts) for (const canary of CANARIES) expect(text).not.toContain(canary);
}

async function collect(client: ApiClient, calls: ((c: ApiClient) => Promise<unknown>)[]): Promise<string[]> {
  const seen: string[] = [];
  for (const call of calls) {
    try {
      seen.push(JSON.stringify(await call(client)));
    } catch (err) {
      seen.push(...exposures(err));
    }
  }
  return seen;
}

const echo = (status: number, text: string) => errorBody(status, 'Error', text, text.slice(0, 40));

describe('with a static token', () => {
  it('masks the token when the server echoes it in errors and outcomes', async () => {
    t = testClient({ retry: { maxAttempts: 2 } });
    const scope = nock(ORIGIN, { reqheaders: { authorization: `Bearer ${CANARY_TOKEN}` } });
    scope.post('/api/v2/rate-limit-policies').reply(400, echo(400, `bad request for Bearer ${CANARY_TOKEN}`));
    scope.post('/api/v2/rate-limit-policies').reply(401, echo(401, `token ${CANARY_TOKEN} expired`));
    scope.post('/api/v2/token-exchange-profiles').reply(403, echo(403, `{"access_token":"${CANARY_TOKEN}"}`));
    scope.post('/api/v2/token-exchange-profiles').reply(409, echo(409, `exists; you are ${CANARY_TOKEN}`));
    scope.delete('/api/v2/rate-limit-policies/x1').times(2).reply(503, echo(503, CANARY_TOKEN));
    scope
      .post('/api/v2/users/u1/permissions')
      .times(2)
      // ETIMEDOUT, not a connection failure: those make the whole client give up on the target.
      .replyWithError(Object.assign(new Error(`timed out for ${CANARY_TOKEN}`), { code: 'ETIMEDOUT' }));
    scope.post('/api/v2/users/u2/permissions').reply(429, echo(429, CANARY_TOKEN), { 'retry-after': '1' });
    scope.post('/api/v2/users/u2/permissions').reply(201, {});
    const perms = [{ resource_server_identifier: 'https://api/', permission_name: 'read:x' }];
    const seen = await collect(t.client, [
      (c) => c.createRateLimitPolicy(POLICY_BODY),
      (c) => c.createRateLimitPolicy(POLICY_BODY),
      (c) => c.createTokenExchangeProfile(PROFILE_BODY),
      (c) => c.createTokenExchangeProfile(PROFILE_BODY),
      (c) => c.deleteRateLimitPolicy('x1'),
      (c) => c.assignUserPermissions('u1', perms),
      (c) => c.assignUserPermissions('u2', perms),
    ]);
    expect(nock.pendingMocks()).toEqual([]);
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.some((s) => s.includes('[REDACTED]'))).toBe(true);
    expectClean(seen);
    expect(t.lines.length).toBeGreaterThan(8);
    expectClean(t.lines);
    expect(t.waits.length).toBeGreaterThan(0);
    expectClean(t.waits.map((w) => w.reason));
  });
});

describe('with client credentials', () => {
  it('masks the client secret and fetched tokens in token-endpoint errors', async () => {
    t = testClient({
      credentials: { kind: 'client_credentials', clientId: CLIENT_ID, clientSecret: CANARY_SECRET },
    });
    nock(ORIGIN)
      .post('/oauth/token')
      .reply(401, {
        error: `invalid_client ${CANARY_SECRET}`,
        error_description: `client_secret=${CANARY_SECRET} is wrong`,
      });
    const seen = await collect(t.client, [(c) => c.createRateLimitPolicy(POLICY_BODY)]);
    expectClean(seen);
    expectClean(t.lines);
    expect(seen.join('\n')).toMatch(/fetchToken: POST \/oauth\/token answered 401/);
  });

  it('masks a fetched token the API echoes after the refresh fails', async () => {
    t = testClient({
      credentials: { kind: 'client_credentials', clientId: CLIENT_ID, clientSecret: CANARY_SECRET },
    });
    nock(ORIGIN).post('/oauth/token').times(2).reply(200, { access_token: FETCHED_CANARY, expires_in: 60 });
    nock(ORIGIN, { reqheaders: { authorization: `Bearer ${FETCHED_CANARY}` } })
      .post('/api/v2/rate-limit-policies')
      .times(2)
      .reply(401, echo(401, `the token ${FETCHED_CANARY} is not for this tenant`));
    const seen = await collect(t.client, [(c) => c.createRateLimitPolicy(POLICY_BODY)]);
    expect(nock.pendingMocks()).toEqual([]);
    expectClean(seen);
    expectClean(t.lines);
    expect(t.lines.some((l) => l.startsWith('POST /oauth/token 200'))).toBe(true);
  });

  it('never logs the token request or response bodies', async () => {
    t = testClient({
      credentials: { kind: 'client_credentials', clientId: CLIENT_ID, clientSecret: CANARY_SECRET },
    });
    nock(ORIGIN).post('/oauth/token').reply(200, { access_token: FETCHED_CANARY, expires_in: 86_400 });
    nock(ORIGIN).post('/api/v2/rate-limit-policies').reply(409, echo(409, 'exists'));
    const result = await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(result.outcome).toBe('present');
    expectClean([JSON.stringify(result), ...t.lines]);
    expect(t.lines.join('\n')).not.toMatch(/client_secret|access_token|grant_type/);
  });
});
