import { describe, expect, it } from 'vitest';
import { TenantClock } from './tenant-clock.js';

const S = 1_700_000_000_000; // on a second

describe('TenantClock', () => {
  it('places the tenant clock by Date only to within seconds: a front end may be a second off and stale', () => {
    const clock = new TenantClock();
    // An answer at our S + 100: Date S. The limiter read from S − 1 s to S + 3 s.
    clock.observe({ sentAt: S + 99, recvAt: S + 101, dateMs: S });
    expect([clock.lo, clock.hi]).toEqual([-1101, 2901]);
    expect(clock.planned).toBe(0); // the clocks may agree
    // Answers on both sides of a Date second narrow nothing below a second.
    clock.observe({ sentAt: S + 704, recvAt: S + 706, dateMs: S + 1000 });
    clock.observe({ sentAt: S + 1694, recvAt: S + 1696, dateMs: S + 1000 });
    expect([clock.lo, clock.hi]).toEqual([-706, 2306]);
  });

  it('finds a tenant seconds ahead by Date, and its phase by Reset moving on', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S + 10, recvAt: S + 12, dateMs: S + 5000, resetMs: S + 6000 });
    expect([clock.lo, clock.hi]).toEqual([3988, 5990]);
    expect(clock.planned).toBe(3988); // apart: plan with the smallest offset they allow
    clock.observe({ sentAt: S + 500, recvAt: S + 502, resetMs: S + 6000 }); // still before it
    expect(clock.hi).toBe(5500);
    clock.passed(S + 6000, S + 700); // an answer at our S + 700 named the next Reset
    expect([clock.lo, clock.hi]).toEqual([5300, 5500]);
  });

  it('takes Reset as an upper bound, and drops Date when the limiter contradicts it', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S + 10, recvAt: S + 12, dateMs: S + 5000 }); // Date says 4 to 8 s ahead
    expect(clock.lo).toBe(3988);
    // A Reset only 1 s after our sending: the limiter's clock cannot be 4 s ahead.
    clock.observe({ sentAt: S + 20, recvAt: S + 22, resetMs: S + 1000 });
    expect(clock.bounded).toBe(false); // Date dropped: nothing bounds the offset from below
    expect(clock.hi).toBe(980);
    expect(clock.planned).toBe(0);
  });

  it('without Date, plans as if the clocks agree until Reset proves the tenant behind', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S, recvAt: S + 2, resetMs: S + 1000 });
    expect(clock.planned).toBe(0);
    expect(clock.bounded).toBe(false);
    expect(clock.answeredBefore({ sentAt: S + 10, recvAt: S + 12 }, S + 1000)).toBe(false); // nothing proves it
    clock.observe({ sentAt: S + 50, recvAt: S + 52, resetMs: S - 2000 }); // its Reset already behind us
    expect(clock.planned).toBe(-2050);
  });

  it('waits longer after each plan a 429 proved early: 100 ms, then twice as much', () => {
    const clock = new TenantClock();
    clock.missed();
    expect(clock.expectedLocal(S)).toBe(S + 100);
    clock.missed();
    expect(clock.expectedLocal(S)).toBe(S + 200);
  });

  it('places an answer before a tenant time by its Reset, or by Reset bounds, never by its Date second', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S + 400, recvAt: S + 402, dateMs: S, resetMs: S + 1000 });
    // Named that Reset: made before it.
    expect(clock.answeredBefore({ sentAt: S + 900, recvAt: S + 902, resetMs: S + 1000 }, S + 1000)).toBe(
      true,
    );
    // Date S, a later Reset: the front end may be a second behind the limiter.
    expect(clock.answeredBefore({ sentAt: S + 500, recvAt: S + 502, dateMs: S }, S + 1000)).toBe(false);
    // Arrived before the earliest our clock can see the limiter at S + 1000 (hi = 600).
    expect(clock.answeredBefore({ sentAt: S + 300, recvAt: S + 302 }, S + 1000)).toBe(true);
  });
});
