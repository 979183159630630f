import { describe, expect, it } from 'vitest';
import type { RateGroupFacts, Target } from '../api/index.js';
import { createMemoryStateStore } from '../state/index.js';
import {
  firstRoundOf,
  keepRateFacts,
  mergedMemory,
  parseRateMemory,
  provenLeft,
  rateMemoryText,
  readFirstRound,
  type RateMemory,
} from './rate-memory.js';

const T0 = Date.parse('2026-11-27T12:00:00.000Z');
const TENANT = 'https://tenant-a.example/api/v2';
const target: Target = {
  baseUrl: TENANT,
  origin: 'https://tenant-a.example',
  tokenUrl: 'https://tenant-a.example/oauth/token',
  audience: 'https://tenant-a.example/api/v2/',
};

/** A bucket of 10 that adds 2 at each 1-second boundary, drained (0 left) at T0, its next boundary 1 s on. */
const drained: RateGroupFacts = {
  routes: ['createRateLimitPolicy'],
  limit: 10,
  remaining: 0,
  at: T0,
  resetAt: T0 + 1000,
  refill: 'window',
  step: 2,
  windowMs: 1000,
};

const memoryOf = (...groups: RateGroupFacts[]): RateMemory => ({ tenant: TENANT, groups });
const textOf = (...groups: RateGroupFacts[]) => rateMemoryText(memoryOf(...groups));

describe('remembered rate-limit facts', () => {
  it('round-trip through the text kept beside the state', () => {
    const continuous: RateGroupFacts = {
      routes: ['assignUserPermissions'],
      limit: 50,
      remaining: 7,
      at: T0 - 500,
      refill: 'continuous',
      perSecond: 16,
    };
    expect(parseRateMemory(textOf(drained, continuous), TENANT, T0)).toEqual({
      memory: memoryOf(drained, continuous),
    });
  });

  it('keep a continuous rate proven above what a record may hold at that cap, so that it reads back', () => {
    const fast: RateGroupFacts = { ...drained, refill: 'continuous', perSecond: 5e9 };
    const parsed = parseRateMemory(textOf(fast), TENANT, T0);
    expect(parsed).toMatchObject({ memory: { groups: [{ perSecond: 1_000_000 }] } });
  });

  it('prove what was left plus the refill since: drained 1 s ago at B=10, 2/s gives 2, not 10', () => {
    expect(provenLeft(drained, T0 + 999)).toBe(0);
    expect(provenLeft(drained, T0 + 1000)).toBe(2);
    expect(firstRoundOf(memoryOf(drained), T0 + 1000, 10).level).toBe(2);
    expect(provenLeft(drained, T0 + 3500)).toBe(6); // boundaries at 1, 2 and 3 s
    // The whole bucket once enough windows passed, never more.
    expect(provenLeft(drained, T0 + 60_000)).toBe(10);
  });

  it('count a continuous bucket at its proven rate, and an unknown one an opener once its Reset passed', () => {
    const continuous: RateGroupFacts = { ...drained, refill: 'continuous', perSecond: 2 };
    delete continuous.step;
    delete continuous.windowMs;
    expect(provenLeft(continuous, T0 + 1000)).toBe(2);
    expect(provenLeft(continuous, T0 + 2600)).toBe(5);
    const unknown: RateGroupFacts = {
      routes: drained.routes,
      limit: 10,
      remaining: 3,
      at: T0,
      resetAt: T0 + 1000,
      refill: 'unknown',
    };
    expect(provenLeft(unknown, T0 + 900)).toBe(3);
    expect(provenLeft(unknown, T0 + 30_000)).toBe(4);
  });

  it('give a first round of at most --parallelism, and the least of the buckets (every route starts on one pacer)', () => {
    const full: RateGroupFacts = {
      ...drained,
      routes: ['createTokenExchangeProfile'],
      remaining: 9999,
      limit: 10_000,
    };
    expect(firstRoundOf(memoryOf(full), T0, 10)).toMatchObject({
      level: 10,
      routes: ['createTokenExchangeProfile'],
    });
    const round = firstRoundOf(memoryOf(full, { ...drained, remaining: 4 }), T0, 10);
    expect(round.level).toBe(4);
    expect(round.routes).toEqual(['createRateLimitPolicy', 'createTokenExchangeProfile']);
  });

  it.each([
    ['another tenant', textOf(drained), 'https://tenant-b.example/api/v2', /another tenant/],
    ['damaged', textOf(drained).slice(0, 40), TENANT, /not JSON/],
    [
      'another version',
      textOf(drained).replace('"tenantform_rate_limits": 1', '"tenantform_rate_limits": 2'),
      TENANT,
      /version/,
    ],
    ['more left than the Limit', textOf({ ...drained, remaining: 11 }), TENANT, /not plausible/],
    [
      'seen in the future (the clock moved back)',
      textOf({ ...drained, at: T0 + 60_000, resetAt: T0 + 61_000 }),
      TENANT,
      /not plausible/,
    ],
    ['a Reset a day away', textOf({ ...drained, resetAt: T0 + 86_400_000 }), TENANT, /not plausible/],
    ['a step above the Limit', textOf({ ...drained, step: 11 }), TENANT, /not plausible/],
    ['no bucket', rateMemoryText(memoryOf()), TENANT, /no plausible bucket/],
  ])('are ignored when %s', (_what, text, tenant, why) => {
    const parsed = parseRateMemory(text, tenant, T0 + 1000);
    expect(parsed).toEqual({ ignored: expect.stringMatching(why) });
  });

  it("keep this run's buckets over the record, and the record's buckets of routes this run did not use", () => {
    const other: RateGroupFacts = { ...drained, routes: ['assignUserPermissions'], remaining: 5 };
    const now: RateGroupFacts = { ...drained, at: T0 + 5000, resetAt: T0 + 6000, remaining: 3 };
    expect(mergedMemory(TENANT, [now], memoryOf(drained, other)).groups).toEqual([now, other]);
    expect(
      mergedMemory(TENANT, [now], { tenant: 'https://tenant-b.example/api/v2', groups: [other] }).groups,
    ).toEqual([now]);
  });
});

describe('the first round from the facts kept with the state', () => {
  it('comes from the store and is said in a debug line; with nothing kept, one request alone', async () => {
    const store = createMemoryStateStore();
    const lines: string[] = [];
    expect(await readFirstRound(store, target, 10, (l) => lines.push(l), T0)).toEqual({
      round: null,
      kept: null,
    });
    expect(lines).toEqual([
      expect.stringMatching(/first round of 1 request: no rate-limit facts of this tenant/),
    ]);
    await keepRateFacts(store, target, [drained], null, () => {});
    lines.length = 0;
    const { round } = await readFirstRound(store, target, 10, (l) => lines.push(l), T0 + 1000);
    expect(round?.level).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(
        /first round of 2 requests, from the rate-limit facts kept with the state: 0 of 10 left 1\.0s ago/,
      ),
    ]);
  });

  it('ignores a foreign record with a debug line, and sends one request alone', async () => {
    const store = createMemoryStateStore();
    await store.writeRateLimits(
      rateMemoryText({ tenant: 'https://tenant-b.example/api/v2', groups: [drained] }),
    );
    const lines: string[] = [];
    expect((await readFirstRound(store, target, 10, (l) => lines.push(l), T0 + 5000)).round).toBeNull();
    expect(lines[0]).toMatch(/ignored: they were learned from another tenant/);
  });

  it('keeps nothing when the run got no answer with the headers', async () => {
    const store = createMemoryStateStore();
    await keepRateFacts(store, target, [], null, () => {});
    expect(await store.readRateLimits()).toBeNull();
  });
});
