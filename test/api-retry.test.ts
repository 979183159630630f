/**
 * Retry decisions end to end: which answers are retried, how long the client
 * waits (from the headers, on the virtual clock), and when it gives up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget, type ApiError } from '../src/api/index.js';
import {
  ORIGIN,
  POLICY_BODY,
  T0,
  errorBody,
  policyResponse,
  testClient,
  type TestClient,
  failure,
} from './api-helpers.js';

const PATH = '/api/v2/rate-limit-policies';
let t: TestClient | undefined;
let server: Server | undefined;

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

function reply429(headers: Record<string, string>) {
  nock(ORIGIN)
    .post(PATH)
    .reply(429, errorBody(429, 'Too Many Requests', 'slow down'), headers);
}

function reset(secondsFromT0: number): string {
  return String(T0 / 1000 + secondsFromT0);
}

/** Waits the client asked of its sleep, excluding zero-length ones. */
function retryWaits(tc: TestClient): number[] {
  return tc.waits.map((w) => w.ms);
}

describe('429', () => {
  it('waits the seconds of Retry-After, then retries', async () => {
    t = testClient();
    reply429({ 'retry-after': '2' });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(retryWaits(t)).toEqual([2000]);
    expect(t.client.stats()).toEqual({ requests: 2, retries: 1, status429: 1, waitsMs: 2000 });
  });

  it('waits until X-RateLimit-Reset when there is no Retry-After', async () => {
    t = testClient();
    reply429({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset(5) });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(5000);
    expect(t.waits[0]!.reason).toBe('rate limited (429); waiting for the budget to refill');
  });

  it('prefers Retry-After over X-RateLimit-Reset', async () => {
    t = testClient();
    reply429({ 'retry-after': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset(9) });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(1000);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    t = testClient();
    reply429({ 'retry-after': new Date(T0 + 3000).toUTCString() });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(3000);
  });

  it('adds jitter to a wait derived from headers', async () => {
    t = testClient({ random: () => 0.5 });
    reply429({ 'x-ratelimit-reset': reset(2) });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(2000 + 125);
  });

  it.each([
    [{ 'retry-after': '3600' }, 30_000, undefined],
    [{ 'x-ratelimit-reset': reset(3600) }, 30_000, undefined],
    [{ 'retry-after': '60' }, 5000, 5000],
  ])('caps the wait for %o at %i ms', async (headers, expected, maxDelayMs) => {
    t = testClient(maxDelayMs ? { retry: { maxDelayMs } } : {});
    reply429(headers);
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(expected);
  });

  it('gives up after maxAttempts with API_RATE_LIMITED', async () => {
    t = testClient({ retry: { maxAttempts: 3 } });
    for (let i = 0; i < 3; i++) reply429({ 'retry-after': '1' });
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_RATE_LIMITED', status: 429, attempts: 3, retryable: true });
    expect(err.message).toMatch(/answered 429 Too Many Requests: slow down after 3 attempts/);
    expect(t.client.stats()).toMatchObject({ requests: 3, retries: 2, status429: 3 });
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('408, 5xx and network errors', () => {
  it('backs off exponentially with jitter under a cap, six attempts by default, worded as server errors', async () => {
    t = testClient({ random: () => 0.999_999, retry: { baseDelayMs: 1000, maxDelayMs: 10_000 } });
    nock(ORIGIN)
      .post(PATH)
      .times(6)
      .reply(503, errorBody(503, 'Service Unavailable', 'down'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_SERVER_ERROR', status: 503, attempts: 6, retryable: true });
    expect(retryWaits(t)).toEqual([1000, 2000, 4000, 8000, 10_000]);
    expect(t.client.stats()).toMatchObject({ requests: 6, retries: 5, waitsMs: 25_000 });
    expect(t.waits[0]!.reason).toBe('server error 503 Service Unavailable; retrying');
    expect(t.waits.every((w) => !/rate limit/.test(w.reason))).toBe(true);
  });

  it('gives up on a 408 after maxAttempts with API_TIMEOUT', async () => {
    t = testClient({ retry: { maxAttempts: 2 } });
    nock(ORIGIN)
      .post(PATH)
      .times(2)
      .reply(408, errorBody(408, 'Request Timeout', 'too slow'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_TIMEOUT', status: 408, attempts: 2 });
  });

  it('gives up on repeated connection resets after four attempts with API_UNREACHABLE naming the target', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .times(4)
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_UNREACHABLE', status: 0, attempts: 4, retryable: true });
    expect(err.message).toBe(
      `Cannot reach the tenant at ${ORIGIN}/api/v2: connection reset before any answer, ECONNRESET, after 4 attempts`,
    );
    expect(t.waits.map((w) => w.reason)).toEqual(
      Array(3).fill('connection reset before any answer, ECONNRESET; retrying'),
    );
  });

  it('sends nothing more once the target was found unreachable', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .times(4)
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_UNREACHABLE', attempts: 0 });
    expect(err.message).toBe(
      `createRateLimitPolicy not sent: the tenant at ${ORIGIN}/api/v2 is unreachable (connection refused, ECONNREFUSED)`,
    );
    expect(t.client.stats().requests).toBe(4);
  });

  it('does not retry an error it cannot classify', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .replyWithError(Object.assign(new Error('odd'), { code: 'EWHATEVER' }));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_NETWORK', attempts: 1 });
  });

  it('treats a 409 on a retried create after a lost answer as present', async () => {
    t = testClient();
    nock(ORIGIN)
      .post(PATH)
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    nock(ORIGIN)
      .post(PATH)
      .reply(409, errorBody(409, 'Conflict', 'already exists'));
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'present' });
  });
});

describe('real sockets on 127.0.0.1', () => {
  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  }

  it('retries after the server closes the socket without answering', async () => {
    let n = 0;
    const baseUrl = await listen((req, res) => {
      n += 1;
      if (n === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(policyResponse()));
    });
    t = testClient({ target: resolveTarget({ baseUrl }, {}) });
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(t.client.stats()).toMatchObject({ requests: 2, retries: 1 });
    expect(t.lines[0]).toMatch(/^POST \/api\/v2\/rate-limit-policies error=(UND_ERR_SOCKET|ECONNRESET) /);
  });

  it('times out a request whose answer never comes, retries, then reports API_TIMEOUT', async () => {
    const baseUrl = await listen(() => {
      /* never answers */
    });
    t = testClient({
      target: resolveTarget({ baseUrl }, {}),
      requestTimeoutMs: 100,
      retry: { maxAttempts: 2 },
    });
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_TIMEOUT', status: 0, attempts: 2 });
    expect(err.message).toMatch(/timed out \(UND_ERR_HEADERS_TIMEOUT\) after 2 attempts/);
    server!.closeAllConnections();
  });

  it.each([
    [false, 'created'],
    [true, 'API_ABORTED'],
  ])(
    'with abortInFlight %s, a request already sent when the signal aborts ends as %s',
    async (abortInFlight, expected) => {
      const controller = new AbortController();
      const baseUrl = await listen((_req, res) => {
        controller.abort();
        setImmediate(() =>
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(policyResponse())),
        );
      });
      t = testClient({ target: resolveTarget({ baseUrl }, {}), signal: controller.signal, abortInFlight });
      const outcome = await t.client.createRateLimitPolicy(POLICY_BODY).then(
        (r) => r.outcome,
        (err: ApiError) => err.code,
      );
      expect(outcome).toBe(expected);
    },
  );
});
