/**
 * Retry decisions end to end: which answers are retried, how long the client
 * waits (from the headers, on the virtual clock), and when it gives up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readList, resolveTarget, type ApiError } from '../src/api/index.js';
import { operationsFor, rateLimitPolicy } from '../src/resources/index.js';
import {
  ORIGIN,
  POLICY_BODY,
  T0,
  errorBody,
  PROFILE_BODY,
  policyResponse,
  testClient,
  virtualClock,
  type TestClient,
  failure,
} from './api-helpers.js';
import { messageOf } from '../src/cli/run-words.js';

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
    expect(t.client.stats()).toEqual({ requests: 2, retries: 1, status429: 1, retried429: 1, waitsMs: 2000 });
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

  it('waits for X-RateLimit-Reset exactly: one request goes then, the others wait for its answer', async () => {
    t = testClient({ random: () => 0.5 });
    reply429({ 'x-ratelimit-reset': reset(2) });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(2000);
  });

  it.each([
    [{ 'retry-after': '3600' }, 30_000, undefined],
    // A per-minute window's Reset may be a minute away: at least 65 s.
    [{ 'x-ratelimit-reset': reset(3600) }, 65_000, undefined],
    [{ 'retry-after': '60' }, 5000, 5000],
  ])('caps the wait for %o at %i ms', async (headers, expected, maxDelayMs) => {
    t = testClient(maxDelayMs ? { retry: { maxDelayMs } } : {});
    reply429(headers);
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(retryWaits(t)[0]).toBe(expected);
  });

  it('retries 20 consecutive 429s without a cap on attempts, then succeeds', async () => {
    t = testClient();
    for (let i = 0; i < 20; i++) reply429({ 'retry-after': '1' });
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(retryWaits(t)).toEqual(Array(20).fill(1000));
    expect(t.client.stats()).toMatchObject({ requests: 21, retries: 20, status429: 20, retried429: 20 });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('retries 429s that say nothing of when to come back after a growing backoff, without a cap', async () => {
    t = testClient({ random: () => 0.999_999 });
    for (let i = 0; i < 10; i++) reply429({});
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(retryWaits(t)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('does not count 429s against the attempts of server errors', async () => {
    t = testClient({ retry: { maxAttempts: 3 } });
    for (let i = 0; i < 8; i++) reply429({ 'retry-after': '1' });
    nock(ORIGIN)
      .post(PATH)
      .times(2)
      .reply(503, errorBody(503, 'Service Unavailable', 'down'));
    nock(ORIGIN).post(PATH).reply(201, policyResponse());
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });

    for (let i = 0; i < 8; i++) reply429({ 'retry-after': '1' });
    nock(ORIGIN)
      .post(PATH)
      .times(3)
      .reply(503, errorBody(503, 'Service Unavailable', 'down'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_SERVER_ERROR', status: 503, attempts: 11 });
  });
});

describe('the rate-limit timeout', () => {
  // As the command line words it: the setting named by its flag (the error keeps it as data).
  const TIMEOUT_LINE =
    `The tenant at ${ORIGIN}/api/v2 answered nothing but 429 (rate limited) for 10s, the rate-limit timeout, ` +
    'so nothing more was sent; to wait longer, raise --rate-limit-timeout';

  it('ends the call once the tenant has answered nothing but 429 for that long, and sends nothing more', async () => {
    t = testClient({ retry: { rateLimitTimeoutMs: 10_000 } });
    nock(ORIGIN)
      .post(PATH)
      .times(4)
      .reply(429, errorBody(429, 'Too Many Requests', 'slow down'), { 'retry-after': '3' });
    // 429s at 0, 3 and 6 s are retried; the one at 9 s would be retried at 12 s, past the
    // deadline (10 s after the first 429): the run ends at 10 s, no wait passes it.
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(t.clock.now() - T0).toBe(10_000);
    expect(err).toMatchObject({ code: 'API_RATE_LIMITED', status: 429, attempts: 4, retryable: true });
    expect(messageOf(err)).toBe(TIMEOUT_LINE);
    expect(err.message).not.toContain('--');
    expect(t.client.stats()).toMatchObject({ requests: 4, status429: 4, retried429: 3 });

    const later = await failure(t.client.createTokenExchangeProfile(PROFILE_BODY));
    expect(later).toMatchObject({ code: 'API_RATE_LIMITED', attempts: 0 });
    expect(messageOf(later)).toBe(TIMEOUT_LINE);
    expect(t.client.stats().requests).toBe(4);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('counts from the first 429 after any other answer', async () => {
    t = testClient({ retry: { rateLimitTimeoutMs: 10_000 } });
    const twice = (n: number) => {
      for (let i = 0; i < n; i++) reply429({ 'retry-after': '3' });
      nock(ORIGIN).post(PATH).reply(201, policyResponse());
    };
    // 429s from 0 to 6 s, created at 9 s; 429s from 9 to 15 s, created at 18 s: the second
    // streak's deadline is 19 s, not 10 s.
    twice(3);
    twice(3);
    await t.client.createRateLimitPolicy(POLICY_BODY);
    await expect(t.client.createRateLimitPolicy(POLICY_BODY)).resolves.toMatchObject({ outcome: 'created' });
    expect(t.clock.now() - T0).toBe(18_000);
  });

  it('ends at once the calls waiting for their turn when it runs out', async () => {
    // A sleep that never ends by itself when asked for a minute or more: only the halt can end it.
    const clock = virtualClock();
    const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
      ms < 60_000
        ? clock.sleep(ms, signal)
        : new Promise((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
          );
    t = testClient({
      now: clock.now,
      sleep,
      retry: { rateLimitTimeoutMs: 10_000, baseDelayMs: 120_000, maxDelayMs: 120_000 },
    });
    nock(ORIGIN)
      .post('/api/v2/token-exchange-profiles')
      .reply(503, errorBody(503, 'Service Unavailable', 'down'));
    nock(ORIGIN)
      .post(PATH)
      .times(4)
      .reply(429, errorBody(429, 'Too Many Requests', 'slow down'), { 'retry-after': '3' });
    const waiting = failure(t.client.createTokenExchangeProfile(PROFILE_BODY));
    const limited = failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(await limited).toMatchObject({ code: 'API_RATE_LIMITED', attempts: 4 });
    const waited = await waiting;
    expect(waited).toMatchObject({ code: 'API_RATE_LIMITED', attempts: 1 });
    expect(messageOf(waited)).toBe(TIMEOUT_LINE);
    expect(t.client.stats().requests).toBe(5);
  });

  // Issue 34: with a 5 s timeout, a tenant answering only 429 with Retry-After: 3600 stopped
  // the run after 31 s, 95 s; one refilling once an hour after 143 s.
  it.each([
    ['Retry-After: 3600', { 'retry-after': '3600' }],
    [
      'a Reset an hour away',
      {
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(T0 / 1000 + 3600),
      },
    ],
  ])('no wait passes the deadline (%s): the run ends 5 s after the first 429', async (_what, headers) => {
    t = testClient({ retry: { rateLimitTimeoutMs: 5_000 } });
    nock(ORIGIN)
      .post(PATH)
      .reply(429, errorBody(429, 'Too Many Requests', 'slow down'), headers);
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_RATE_LIMITED', attempts: 1 });
    expect(err.message).toContain('for 5s, the rate-limit timeout');
    expect(t.clock.now() - T0).toBe(5_000);
    expect(Math.max(...t.clock.sleeps)).toBeLessThanOrEqual(5_000);
  });

  it('holds for reads: a list read through 20 429s, then one the tenant only answers 429', async () => {
    t = testClient({ retry: { rateLimitTimeoutMs: 10_000 } });
    const list = operationsFor(rateLimitPolicy, 'full').list!;
    const page = (from?: string) =>
      nock(ORIGIN)
        .get('/api/v2/rate-limit-policies')
        .query((q) => q.from === from);
    page().reply(200, { rate_limit_policies: [], next: 'c2' });
    for (let i = 0; i < 20; i++)
      page('c2').reply(429, errorBody(429, 'Too Many Requests', ''), { 'retry-after': '0' });
    page('c2').reply(200, { rate_limit_policies: [] });
    await expect(readList(t.client.call, list, {})).resolves.toMatchObject({ pages: 2 });

    page()
      .times(5)
      .reply(429, errorBody(429, 'Too Many Requests', ''), { 'retry-after': '2' });
    const err = await failure(readList(t.client.call, list, {}));
    expect(err).toMatchObject({ code: 'API_RATE_LIMITED' });
    expect(messageOf(err)).toBe(TIMEOUT_LINE);
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
