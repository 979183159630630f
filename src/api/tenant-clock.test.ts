import { describe, expect, it } from 'vitest';
import { TenantClock } from './tenant-clock.js';

const S = 1_700_000_000_000; // on a second

describe('TenantClock', () => {
  it('narrows the offset from Date: answers on both sides of a second pin it', () => {
    const clock = new TenantClock();
    // The tenant is 300 ms ahead of us. An answer at our S + 100 (its S + 400): Date S.
    clock.observe({ sentAt: S + 99, recvAt: S + 101, dateMs: S });
    expect([clock.lo, clock.hi]).toEqual([-101, 901]);
    expect(clock.planned).toBe(0); // the clocks may still agree
    // At our S + 705 its clock read S + 1005: Date S + 1000.
    clock.observe({ sentAt: S + 704, recvAt: S + 706, dateMs: S + 1000 });
    expect(clock.lo).toBe(294);
    // At our S + 1695 (its S + 1995): still Date S + 1000.
    clock.observe({ sentAt: S + 1694, recvAt: S + 1696, dateMs: S + 1000 });
    expect(clock.hi).toBe(306);
    expect(clock.planned).toBe(294); // apart: plan with the smallest offset they allow
    expect(clock.expectedLocal(S + 2000)).toBe(S + 1706); // the tenant's S + 2 s, on our clock, at the latest
    expect(clock.earliestLocal(S + 2000)).toBe(S + 1694);
  });

  it('takes Reset as an upper bound, and drops Date when the limiter contradicts it', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S + 10, recvAt: S + 12, dateMs: S + 5000 }); // Date says 5 s ahead
    expect(clock.lo).toBe(4988);
    // A Reset only 1 s after our sending: the limiter's clock cannot be 5 s ahead.
    clock.observe({ sentAt: S + 20, recvAt: S + 22, resetMs: S + 1000 });
    expect(clock.hasDate).toBe(false);
    expect(clock.hi).toBe(980);
    expect(clock.planned).toBe(0);
  });

  it('without Date, plans as if the clocks agree until Reset proves the tenant behind', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S, recvAt: S + 2, resetMs: S + 1000 });
    expect(clock.planned).toBe(0);
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

  it('places an answer before a tenant time by its Date second', () => {
    const clock = new TenantClock();
    clock.observe({ sentAt: S + 400, recvAt: S + 402, dateMs: S });
    expect(clock.answeredBefore({ sentAt: S + 900, recvAt: S + 902, dateMs: S }, S + 1000)).toBe(true);
    expect(clock.answeredBefore({ sentAt: S + 990, recvAt: S + 1002, dateMs: S + 1000 }, S + 1000)).toBe(
      false,
    );
  });
});
