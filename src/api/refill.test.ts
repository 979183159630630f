/**
 * RefillBounds against the emulator's token bucket on a virtual clock: the
 * bounds must never exceed the bucket's rate, whatever the timing, and the
 * drain bound must tighten as a run empties the bucket.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../emulator/rate-limit.js';
import { RefillBounds } from './refill.js';

interface Shot {
  /** Local sending time, ms. */
  sentAt: number;
  /** When the bucket serves it (sentAt ≤ servedAt ≤ recvAt). */
  servedAt: number;
  recvAt: number;
}

/** Serves `shots` in servedAt order from a bucket, then tells the bounds in recvAt order. */
function run(rate: number, burst: number, shots: Shot[]): RefillBounds {
  let now = 0;
  const limiter = new RateLimiter(rate, burst, () => now);
  const answers = [...shots]
    .sort((a, b) => a.servedAt - b.servedAt)
    .map((shot) => {
      now = shot.servedAt;
      return { shot, decision: limiter.take('tenant') };
    })
    .filter((a) => a.decision.allowed)
    .sort((a, b) => a.shot.recvAt - b.shot.recvAt);
  const bounds = new RefillBounds();
  for (const { shot, decision } of answers) {
    bounds.observe({
      sentAt: shot.sentAt,
      recvAt: shot.recvAt,
      limit: decision.limit,
      remaining: decision.remaining,
      resetAt: decision.resetSec * 1000,
    });
  }
  return bounds;
}

/** A deterministic source in [0, 1). */
function sequence(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('RefillBounds', () => {
  it('learns a slow bucket from a long drain: 10 tokens at 1/s, then one a second', () => {
    const start = 1_700_000_000_300;
    const shots: Shot[] = [{ sentAt: start, servedAt: start + 1, recvAt: start + 2 }];
    // The other nine of the bucket at once, after the first answer; then one per
    // 1.15 s, as a client pacing at a rate it underestimates.
    for (let i = 0; i < 9; i++)
      shots.push({ sentAt: start + 3, servedAt: start + 4 + i, recvAt: start + 20 });
    for (let i = 1; i <= 6; i++) {
      const at = start + 4 + 1150 * i;
      shots.push({ sentAt: at, servedAt: at + 1, recvAt: at + 2 });
    }
    const bounds = run(1, 10, shots);
    // One answer's Reset proves 9 tokens in 10.7 s (0.84/s) and the growth 6 in
    // 6.9 s (0.87/s); the 15 requests served since the bucket was full prove
    // 16 tokens by the last Reset, 16.7 s after (0.96/s).
    expect(bounds.lower! * 1000).toBeGreaterThan(0.95);
    expect(bounds.lower! * 1000).toBeLessThanOrEqual(1);
  });

  it('never proves more than the rate, whatever the order requests are served and answered in', () => {
    const random = sequence(11);
    for (let trial = 0; trial < 300; trial++) {
      const rate = [1, 2, 10, 16, 50][trial % 5]!;
      const burst = [1, 3, 10, 50][Math.floor(trial / 5) % 4]!;
      let t = 1_700_000_000_000 + Math.floor(random() * 1000);
      const shots: Shot[] = [];
      for (let i = 0; i < 80; i++) {
        // Groups of concurrent requests, served and answered in shuffled order.
        const group = 1 + Math.floor(random() * 4);
        for (let j = 0; j < group; j++) {
          const servedAt = t + random() * 20;
          shots.push({ sentAt: t, servedAt, recvAt: servedAt + random() * 20 });
        }
        t += 40 + (random() * 2000) / rate;
      }
      const bounds = run(rate, burst, shots);
      if (bounds.lower !== undefined) expect(bounds.lower * 1000).toBeLessThanOrEqual(rate * (1 + 1e-9));
    }
  });
});
