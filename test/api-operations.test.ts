/**
 * Each operation against each class of answer, through the client's own
 * undici Agent with nock intercepting it.
 */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../src/api/index.js';
import {
  CANARY_TOKEN,
  ORIGIN,
  POLICY_BODY,
  PROFILE_BODY,
  errorBody,
  policyResponse,
  profileResponse,
  testClient,
  type TestClient,
  failure,
} from './api-helpers.js';

interface Operation {
  name: string;
  method: 'post' | 'delete';
  path: string;
  call: (c: ApiClient) => Promise<unknown>;
  success: [number, unknown][];
  expectSuccess: unknown;
  /** Status with its own outcome, and that outcome. */
  special?: [number, unknown];
}

const OPS: Operation[] = [
  {
    name: 'createRateLimitPolicy',
    method: 'post',
    path: '/api/v2/rate-limit-policies',
    call: (c) => c.createRateLimitPolicy(POLICY_BODY),
    success: [
      [201, policyResponse()],
      [200, policyResponse()],
    ],
    expectSuccess: { outcome: 'created', policy: policyResponse() },
    special: [
      409,
      {
        outcome: 'present',
        error: { status: 409, error: 'Conflict', message: 'exists', errorCode: 'conflict' },
      },
    ],
  },
  {
    name: 'deleteRateLimitPolicy',
    method: 'delete',
    path: '/api/v2/rate-limit-policies/rlp_0123456789abcdefghijk',
    call: (c) => c.deleteRateLimitPolicy('rlp_0123456789abcdefghijk'),
    success: [
      [204, ''],
      [200, {}],
      [202, ''],
    ],
    expectSuccess: { outcome: 'deleted' },
    special: [404, { outcome: 'gone' }],
  },
  {
    name: 'assignUserPermissions',
    method: 'post',
    path: '/api/v2/users/auth0%7Cabc/permissions',
    call: (c) =>
      c.assignUserPermissions('auth0|abc', [
        { resource_server_identifier: 'https://api/', permission_name: 'read:x' },
      ]),
    success: [
      [201, {}],
      [204, ''],
      [200, 'not json at all'],
    ],
    expectSuccess: { outcome: 'assigned' },
  },
  {
    name: 'createTokenExchangeProfile',
    method: 'post',
    path: '/api/v2/token-exchange-profiles',
    call: (c) => c.createTokenExchangeProfile(PROFILE_BODY),
    success: [
      [201, profileResponse()],
      [200, profileResponse()],
    ],
    expectSuccess: { outcome: 'created', profile: profileResponse() },
    special: [
      409,
      {
        outcome: 'present',
        error: { status: 409, error: 'Conflict', message: 'exists', errorCode: 'conflict' },
      },
    ],
  },
];

const FAILURES: [number, string][] = [
  [400, 'API_BAD_REQUEST'],
  [401, 'API_UNAUTHORIZED'],
  [403, 'API_FORBIDDEN'],
  [404, 'API_NOT_FOUND'],
  [409, 'API_CONFLICT'],
  [422, 'API_CLIENT_ERROR'],
  [501, 'API_SERVER_ERROR'],
];

let t: TestClient;

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(async () => {
  await t?.client.close();
  nock.cleanAll();
});

function scope(op: Operation) {
  return nock(ORIGIN)[op.method](op.path);
}

describe.each(OPS)('$name', (op) => {
  it.each(op.success)('treats %i as success', async (status, body) => {
    t = testClient();
    const s = scope(op).reply(status, body as nock.Body);
    await expect(op.call(t.client)).resolves.toEqual(op.expectSuccess);
    expect(s.isDone()).toBe(true);
    expect(t.client.stats()).toMatchObject({ requests: 1, retries: 0 });
  });

  if (op.special) {
    const [status, outcome] = op.special;
    it(`treats ${status} as the outcome ${(outcome as { outcome: string }).outcome}`, async () => {
      t = testClient();
      scope(op).reply(
        status,
        errorBody(status, status === 409 ? 'Conflict' : 'Not Found', 'exists', 'conflict'),
      );
      await expect(op.call(t.client)).resolves.toEqual(outcome);
    });
  }

  it.each(FAILURES.filter(([status]) => status !== op.special?.[0]))(
    'throws without retrying on %i (%s)',
    async (status, code) => {
      t = testClient();
      scope(op).reply(status, errorBody(status, 'Some Error', `the ${status} reason`, 'some_code'));
      const err = await failure(op.call(t.client));
      expect(err).toMatchObject({
        code,
        status,
        error: 'Some Error',
        serverMessage: `the ${status} reason`,
        errorCode: 'some_code',
        operation: op.name,
        method: op.method.toUpperCase(),
        path: op.path,
        retryable: false,
        attempts: 1,
      });
      expect(err.message).toContain(
        `${op.name}: ${op.method.toUpperCase()} ${op.path} answered ${status} Some Error`,
      );
      expect(t.client.stats()).toMatchObject({ requests: 1, retries: 0 });
    },
  );

  it.each([
    [429, { 'retry-after': '1' }],
    [408, {}],
    [500, {}],
    [502, {}],
    [503, {}],
    [504, {}],
  ])('retries after %i and then succeeds', async (status, headers) => {
    t = testClient();
    scope(op).reply(status, errorBody(status, 'Busy', 'try later'), headers);
    const [okStatus, okBody] = op.success[0]!;
    scope(op).reply(okStatus, okBody as nock.Body);
    await expect(op.call(t.client)).resolves.toEqual(op.expectSuccess);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1, status429: status === 429 ? 1 : 0 });
  });

  it('retries after a connection reset and then succeeds', async () => {
    t = testClient();
    scope(op).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const [okStatus, okBody] = op.success[0]!;
    scope(op).reply(okStatus, okBody as nock.Body);
    await expect(op.call(t.client)).resolves.toEqual(op.expectSuccess);
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1 });
  });

  it('sends the bearer token, JSON content type and the exact body', async () => {
    t = testClient();
    let seenBody: unknown;
    const base = nock(ORIGIN, {
      reqheaders: {
        authorization: `Bearer ${CANARY_TOKEN}`,
        accept: 'application/json',
        ...(op.method === 'post' ? { 'content-type': 'application/json' } : {}),
      },
    });
    const s = base[op.method](op.path, (body: unknown) => {
      seenBody = body;
      return true;
    }).reply(op.success[0]![0], op.success[0]![1] as nock.Body);
    await op.call(t.client);
    expect(s.isDone()).toBe(true);
    if (op.name === 'createRateLimitPolicy') expect(seenBody).toEqual(POLICY_BODY);
    if (op.name === 'createTokenExchangeProfile') expect(seenBody).toEqual(PROFILE_BODY);
    if (op.name === 'assignUserPermissions') {
      expect(seenBody).toEqual({
        permissions: [{ resource_server_identifier: 'https://api/', permission_name: 'read:x' }],
      });
    }
  });
});
