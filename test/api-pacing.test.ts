/**
 * Pacing: concurrent callers share one limiter fed by the X-RateLimit-*
 * headers, so they slow down before the tenant answers 429; and --max-rps.
 * The tenant is a fixed-window limiter on the virtual clock, answering through
 * a fake dispatcher so that "sent" and "arrived" are the same virtual instant;
 * one test goes through nock.
 */
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ORIGIN,
  POLICY_BODY,
  errorBody,
  fakeDispatcher,
  policyResponse,
  testClient,
  virtualClock,
  type FakeAnswer,
  type TestClient,
  type VirtualClock,
} from './api-helpers.js';

const PATH = '/api/v2/rate-limit-policies';
let t: TestClient | undefined;

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
});

/** A tenant allowing `limit` requests per one-second window of the virtual clock. */
function windowedTenant(clock: VirtualClock, limit: number) {
  const arrivals: number[] = [];
  const counts = new Map<number, number>();
  let rejected = 0;
  const answer = (): FakeAnswer => {
    const now = clock.now();
    arrivals.push(now);
    const window = Math.floor(now / 1000);
    const used = (counts.get(window) ?? 0) + 1;
    counts.set(window, used);
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - used)),
      'x-ratelimit-reset': String(window + 1),
    };
    if (used > limit) {
      rejected += 1;
      return {
        status: 429,
        headers,
        body: errorBody(429, 'Too Many Requests', 'Global limit has been reached'),
      };
    }
    return { status: 201, headers, body: policyResponse() };
  };
  const dispatcher = fakeDispatcher(() => answer());
  return {
    dispatcher,
    arrivals,
    counts,
    rejected: () => rejected,
  };
}

function pacedClient(limit: number, overrides: Parameters<typeof testClient>[0] = {}) {
  const clock = virtualClock();
  const tenant = windowedTenant(clock, limit);
  t = testClient({ dispatcher: tenant.dispatcher, now: clock.now, sleep: clock.sleep, ...overrides });
  t.clock = clock;
  return { tc: t, tenant };
}

describe('pacing from X-RateLimit-* headers', () => {
  it.each([
    [5, 30],
    [20, 60],
    [1, 5],
  ])(
    'slows concurrent callers when Remaining reaches 0 (limit %i, %i callers): 429s only on the probes for a refill (2 s, then 4 s apart)',
    async (limit, callers) => {
      const { tc, tenant } = pacedClient(limit);
      const results = await Promise.all(
        Array.from({ length: callers }, () => tc.client.createRateLimitPolicy(POLICY_BODY)),
      );
      expect(results.every((r) => r.outcome === 'created')).toBe(true);
      expect(tenant.rejected()).toBeLessThanOrEqual(2);
      expect(tenant.counts.size).toBeGreaterThanOrEqual(Math.ceil(callers / limit));
      expect(tc.client.stats()).toMatchObject({ requests: callers + tenant.rejected() });
      expect(tc.client.stats().waitsMs).toBeGreaterThan(0);
      if (limit > 1) expect(tc.waits.some((w) => /budget/.test(w.reason))).toBe(true);
    },
  );

  it('sends every request at once while the window has room', async () => {
    const { tc, tenant } = pacedClient(100);
    await Promise.all(Array.from({ length: 50 }, () => tc.client.createRateLimitPolicy(POLICY_BODY)));
    expect(tenant.counts.size).toBe(1);
    expect(tc.client.stats().waitsMs).toBe(0);
  });

  it('holds other callers after a 429 until the reset it names (through nock)', async () => {
    t = testClient();
    const reset = String(Math.floor(t.clock.now() / 1000) + 3);
    const arrivals: number[] = [];
    nock(ORIGIN)
      .post(PATH)
      .reply(() => {
        arrivals.push(t!.clock.now());
        return [
          429,
          errorBody(429, 'Too Many Requests', 'limit'),
          { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
        ];
      });
    nock(ORIGIN)
      .post(PATH)
      .times(3)
      .reply(() => {
        arrivals.push(t!.clock.now());
        return [201, policyResponse()];
      });
    const start = t.clock.now();
    await Promise.all(Array.from({ length: 3 }, () => t!.client.createRateLimitPolicy(POLICY_BODY)));
    expect(arrivals[0]).toBe(start);
    expect(arrivals.slice(1).every((at) => at >= start + 3000)).toBe(true);
    expect(t.client.stats()).toMatchObject({ requests: 4, status429: 1 });
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('--max-rps', () => {
  it.each([
    [2, 500],
    [4, 250],
    [0.5, 2000],
  ])('keeps requests at least 1/%s s apart', async (maxRps, gap) => {
    const { tc, tenant } = pacedClient(1000, { maxRps });
    await Promise.all(Array.from({ length: 6 }, () => tc.client.createRateLimitPolicy(POLICY_BODY)));
    const gaps = tenant.arrivals.slice(1).map((at, i) => at - tenant.arrivals[i]!);
    expect(gaps).toHaveLength(5);
    expect(gaps.filter((g) => g < gap)).toEqual([]);
    // Typed: the API layer names no flag; the CLI words the kind (src/cli/progress.ts).
    const ceiling = tc.waits.filter((w) => w.kind === 'max-rps');
    expect(ceiling.length).toBeGreaterThan(0);
    expect(ceiling.every((w) => w.reason === `at most ${maxRps} requests per second`)).toBe(true);
  });

  it('reports a --max-rate wait as its own kind, in words that name no flag', async () => {
    const { tc } = pacedClient(10, { share: 0.3 });
    await Promise.all(Array.from({ length: 6 }, () => tc.client.createRateLimitPolicy(POLICY_BODY)));
    const shared = tc.waits.filter((w) => w.kind === 'max-rate');
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.every((w) => w.reason === "30% of the tenant's sustained rate")).toBe(true);
    expect(tc.waits.some((w) => w.reason.includes('--'))).toBe(false);
  });

  it('applies the tighter of --max-rps and the tenant window', async () => {
    const { tc, tenant } = pacedClient(2, { maxRps: 10 });
    await Promise.all(Array.from({ length: 8 }, () => tc.client.createRateLimitPolicy(POLICY_BODY)));
    expect(tenant.rejected()).toBeLessThanOrEqual(2); // the probes that find a fixed window
  });
});
