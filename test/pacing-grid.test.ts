/**
 * Pacing against a token bucket on a virtual clock (test/pacing-sim.ts): the
 * emulator's bucket, ten workers, a few milliseconds of latency. No timed
 * assertion: the clock only moves when something waits.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from './pacing-sim.js';

const cells = [1, 2, 10, 16, 50].flatMap((rate) => [3, 10, 50].map((burst) => [rate, burst] as const));

describe('pacing a token bucket', () => {
  // Where the run starts within a second decides how far the whole-second Reset
  // is from the truth: four starts, each within a tenth of (N − B)/R. A large
  // bucket leaves time to learn the rate exactly (the bench's 1.05 adds start-up).
  const starts = [1_700_000_000_437, 1_700_000_000_050, 1_700_000_000_620, 1_700_000_000_800];
  it.each(cells)(
    'R=%i/s B=%i: within a tenth of (N − B)/R with no 429, wherever in the second it starts',
    async (rate, burst) => {
      const requests = burst + Math.max(10, rate * 8);
      for (const start of starts) {
        const r = await simulate({ rate, burst, requests, latencyMs: 3, jitterMs: 4, start });
        expect(r.status429).toBe(0);
        expect(r.ratio).toBeLessThanOrEqual(burst >= 50 ? 1.03 : 1.1);
      }
    },
  );

  it('learns a one-request bucket from its answers and probes upward: far faster than its Reset', async () => {
    const r = await simulate({ rate: 50, burst: 1, requests: 400, latencyMs: 3, jitterMs: 4 });
    expect(r.ratio).toBeLessThan(2);
    expect(r.status429 / r.sent).toBeLessThan(0.01);
  });

  // A bucket of one refills unseen between requests: its rate is found by probing upward.
  it('R=2/s B=1: a 429 to its own probe above the proven rate costs a tenth of the rate, not half', async () => {
    const r = await simulate({ rate: 2, burst: 1, requests: 13, latencyMs: 3, jitterMs: 4 });
    expect(r.ratio).toBeLessThan(1.3);
  });

  it('shares a tenant bucket with a client taking half of it: at least 40% of R, under 2% 429s', async () => {
    const [rate, burst, requests] = [16, 50, 210];
    const r = await simulate({
      rate,
      burst,
      requests,
      latencyMs: 3,
      jitterMs: 4,
      other: { perSecond: rate / 2 },
    });
    expect((requests - burst) / (r.wallMs / 1000) / rate).toBeGreaterThanOrEqual(0.4);
    expect(r.status429 / r.sent).toBeLessThan(0.02);
  });

  // Another client leaving us three quarters or a quarter of the bucket: Remaining is
  // theirs to take too, so the 429s stay rare whatever their share.
  it.each([0.25, 0.75])(
    'shares a tenant bucket with a client taking %s of it: most of the rest, under one in fifty answered 429',
    async (taken) => {
      const [rate, burst, requests] = [16, 50, 178];
      const r = await simulate({
        rate,
        burst,
        requests,
        latencyMs: 3,
        jitterMs: 4,
        other: { perSecond: rate * taken },
      });
      expect((requests - burst) / (r.wallMs / 1000) / rate).toBeGreaterThanOrEqual(0.8 * (1 - taken));
      expect(r.status429 / r.sent).toBeLessThan(0.02);
    },
  );

  // A storm from the start makes the first answers look like a fixed window; the
  // moving Reset of the answers after it shows the bucket again.
  it.each([
    [16, 50],
    [10, 10],
    [50, 50],
  ])(
    "R=%i/s B=%i: back near the full rate 2 s after another client's 429 storm ends and the bucket refilled",
    async (rate, burst) => {
      const r = await simulate({
        rate,
        burst,
        requests: burst + rate * 12,
        latencyMs: 3,
        jitterMs: 4,
        other: { perSecond: rate * 3, to: 3000 },
      });
      const after = r.accepted.filter((t) => t > 3000 + (burst / rate) * 1000 + 2000);
      const perSecond = (after.length - 1) / ((after[after.length - 1]! - after[0]!) / 1000);
      expect(perSecond / rate).toBeGreaterThanOrEqual(0.9);
    },
  );
});
