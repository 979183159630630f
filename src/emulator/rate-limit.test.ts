import { describe, expect, it } from 'vitest';
import { RateLimiter, WindowBucket, rateLimitHeaders } from './rate-limit.js';

describe('token bucket', () => {
  it('starts full, refuses when empty and refills at perSecond', () => {
    let now = 10_000;
    const limiter = new RateLimiter(4, 2, () => now);
    expect(limiter.take('a')).toMatchObject({ allowed: true, limit: 2, remaining: 1, resetSec: 11 });
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a')).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 1 });
    now += 250;
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps buckets apart by key and empties them on clear', () => {
    const limiter = new RateLimiter(1, undefined, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
    limiter.clear();
    expect(limiter.take('a').allowed).toBe(true);
  });

  it.each([
    [0.5, 1],
    [2.5, 3],
    [10, 10],
  ])('defaults the burst of %d per second to %d', (perSecond, burst) => {
    expect(new RateLimiter(perSecond, undefined, () => 0).burst).toBe(burst);
  });

  it.each([
    [0, undefined],
    [-1, undefined],
    [1, 0],
    [1, 1.5],
  ])('refuses perSecond %d with burst %s', (perSecond, burst) => {
    expect(() => new RateLimiter(perSecond, burst, () => 0)).toThrow(RangeError);
  });

  it('never caps the bucket above the burst, however long the pause', () => {
    let now = 0;
    const limiter = new RateLimiter(100, 3, () => now);
    limiter.take('a');
    now += 3_600_000;
    expect(limiter.take('a')).toMatchObject({ remaining: 2, resetSec: 3601 });
  });

  it('renders the three headers as integers', () => {
    expect(
      rateLimitHeaders({ atMs: 0, allowed: true, limit: 5, remaining: 4, resetSec: 17, retryAfterSec: 1 }),
    ).toEqual({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'X-RateLimit-Reset': '17',
    });
  });
});

describe('window bucket (the documented model)', () => {
  it('starts full, adds perWindow at the top of each second, and says when tokens next come', () => {
    let now = 10_400;
    const limiter = new WindowBucket({ perWindow: 2, burst: 3 }, () => now);
    expect(limiter.take('a')).toMatchObject({ allowed: true, limit: 3, remaining: 2, resetSec: 11 });
    limiter.take('a');
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0, resetSec: 11 });
    now = 10_999;
    expect(limiter.take('a')).toMatchObject({ allowed: false, remaining: 0, resetSec: 11, retryAfterSec: 1 });
    now = 11_000;
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1, resetSec: 12 });
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('never holds more than the burst, however many windows pass or how large the step', () => {
    let now = 0;
    const limiter = new WindowBucket({ perWindow: 20, burst: 5 }, () => now);
    for (let i = 0; i < 5; i++) limiter.take('a');
    now = 1_000;
    expect(limiter.take('a')).toMatchObject({ remaining: 4 });
    now = 3_600_000;
    expect(limiter.take('a')).toMatchObject({ remaining: 4, resetSec: 3601 });
  });

  it('counts per minute with a 60 s window: Reset is the top of the next minute', () => {
    let now = 120_000 + 17_250;
    const limiter = new WindowBucket({ perWindow: 3, burst: 2, windowMs: 60_000 }, () => now);
    limiter.take('a');
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0, resetSec: 180 });
    expect(limiter.take('a')).toMatchObject({ allowed: false, retryAfterSec: 43 });
    now = 180_000;
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1, resetSec: 240 });
  });

  it.each([
    [{ perWindow: 0, burst: 1 }],
    [{ perWindow: 1.5, burst: 1 }],
    [{ perWindow: 1, burst: 0 }],
    [{ perWindow: 1, burst: 1, windowMs: 1500 }],
  ])('refuses %j', (options) => {
    expect(() => new WindowBucket(options, () => 0)).toThrow(RangeError);
  });
});
