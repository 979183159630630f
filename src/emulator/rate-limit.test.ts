import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitHeaders } from './rate-limit.js';

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
      rateLimitHeaders({ allowed: true, limit: 5, remaining: 4, resetSec: 17, retryAfterSec: 1 }),
    ).toEqual({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '4',
      'X-RateLimit-Reset': '17',
    });
  });
});
