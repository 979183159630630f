import { describe, expect, it } from 'vitest';
import { Pacer, WAIT_REASON } from './pacer.js';

const T0 = 1_700_000_000_000;

function fixture(opts: { maxRps?: number; maxDelayMs?: number } = {}) {
  let t = T0;
  const sleeps: number[] = [];
  const reasons: string[] = [];
  const pacer = new Pacer({
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      t += ms;
    },
    random: () => 0,
    maxDelayMs: opts.maxDelayMs ?? 30_000,
    onWait: (_ms, reason) => reasons.push(reason),
    ...(opts.maxRps !== undefined ? { maxRps: opts.maxRps } : {}),
  });
  const rate = (remaining: number, resetInSec: number, limit = 10) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.floor(t / 1000) + resetInSec),
  });
  return { pacer, sleeps, reasons, rate, now: () => t };
}

/** Which of `promises` have resolved once the microtask queue has drained. */
async function granted(promises: Promise<unknown>[]): Promise<boolean[]> {
  const done = promises.map(() => false);
  promises.forEach((p, i) => void p.then(() => (done[i] = true)));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('Pacer', () => {
  it('lets one request through until the first answer shows the rate-limit headers', async () => {
    const f = fixture();
    const waiting = [f.pacer.acquire(), f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(waiting)).toEqual([true, false, false]);
    f.pacer.release(await waiting[0]!, f.rate(9, 1));
    expect(await granted(waiting)).toEqual([true, true, true]);
  });

  it('hands out tickets in sending order', async () => {
    const f = fixture();
    const a = await f.pacer.acquire();
    f.pacer.release(a, {});
    expect(await Promise.all([f.pacer.acquire(), f.pacer.acquire()])).toEqual([2, 3]);
  });

  it('stops pacing from headers when the tenant sends none', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), {});
    const all = Array.from({ length: 20 }, () => f.pacer.acquire());
    expect((await granted(all)).every(Boolean)).toBe(true);
    expect(f.sleeps).toEqual([]);
  });

  it('never waits on the emulator without --rate-limit (a large bucket, always full), and keeps no more in flight than asked', async () => {
    // What `tenantform emulator` without --rate-limit sends: Limit 10000, Remaining 9999, Reset = now.
    const f = fixture();
    const unlimited = () => ({
      'x-ratelimit-limit': '10000',
      'x-ratelimit-remaining': '9999',
      'x-ratelimit-reset': String(Math.ceil(f.now() / 1000)),
    });
    f.pacer.release(await f.pacer.acquire(), unlimited());
    for (let round = 0; round < 50; round++) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => f.pacer.acquire()));
      expect(f.pacer.active).toBe(10);
      for (const ticket of batch) f.pacer.release(ticket, unlimited());
    }
    expect(f.sleeps).toEqual([]);
    expect(f.pacer.active).toBe(0);
  });

  it('spends the remaining budget, probes once at the rate Reset proves, and after a 429 on the probe waits for the reset', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(2, 3)); // 7 tokens missing, full in 3 s: one per 429 ms
    f.pacer.release(await f.pacer.acquire(), null);
    f.pacer.release(await f.pacer.acquire(), null);
    const probe = await f.pacer.acquire();
    expect(f.sleeps).toEqual([429]);
    expect(await granted([f.pacer.acquire()])).toEqual([false]); // one probe at a time
    f.pacer.release(probe, f.rate(0, 3), 429); // a fixed window after all
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.reasons).toEqual([WAIT_REASON.pace, WAIT_REASON.after429]);
    expect(f.sleeps[1]).toBe(3000 - 429); // to the reset the 429 names
  });

  it('treats an accepted probe that shows a refill as a token bucket and paces it', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(9, 1)); // full before: exactly 1 missing, full in ≤ 1 s
    for (let i = 0; i < 9; i++) f.pacer.release(await f.pacer.acquire(), f.rate(8 - i, 1));
    const probe = await f.pacer.acquire(); // at the proven rate
    f.pacer.release(probe, f.rate(1, 1)); // more than the 0 it had: refilled
    expect(f.pacer.ratePerSecond).toBeGreaterThan(9);
    expect(f.reasons.every((r) => r === WAIT_REASON.pace)).toBe(true);
  });

  it('counts requests sent after the reporting one against the budget, and waits for their answers', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(10, 1)); // ticket 1
    const [t2, t3, t4, t5] = await Promise.all(Array.from({ length: 4 }, () => f.pacer.acquire()));
    f.pacer.release(t2!, f.rate(4, 1)); // 3 sent after ticket 2 are in flight: 1 left
    const more = [f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(t3!, f.rate(3, 1)); // tickets 4, 5, 6 in flight after 3: 0 left
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(t4!, f.rate(3, 1)); // tickets 5, 6 after 4: 1 left (the bucket refilled)
    expect(await granted(more)).toEqual([true, true]);
    f.pacer.release(t5!, null);
    expect(f.sleeps).toEqual([]);
  });

  it('ignores an answer to a request older than the one the level came from', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(5, 2));
    const [older, newer] = await Promise.all([f.pacer.acquire(), f.pacer.acquire()]);
    f.pacer.release(newer!, f.rate(0, 2));
    f.pacer.release(older!, f.rate(4, 2)); // late, and stale
    await f.pacer.acquire();
    expect(f.sleeps).toHaveLength(1);
  });

  it('holds everyone after a 429 until the reset it names', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(5, 1));
    f.pacer.release(
      await f.pacer.acquire(),
      { 'x-ratelimit-reset': String(Math.floor(f.now() / 1000) + 2) },
      429,
    );
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([2000]);
  });

  it('uses Retry-After as the reset of a 429 without X-RateLimit-Reset', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), { 'retry-after': '4' }, 429);
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([4000]);
  });

  it('sends a single probe after a wait cut short by maxDelayMs', async () => {
    const f = fixture({ maxDelayMs: 1000 });
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 60));
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([1000]);
    expect(await granted([f.pacer.acquire()])).toEqual([false]);
  });

  it('allows the full limit again after the reset of a fixed window', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 1, 3));
    const probe = await f.pacer.acquire();
    f.pacer.release(probe, f.rate(0, 1, 3), 429);
    const burst = Array.from({ length: 4 }, () => f.pacer.acquire());
    expect(await granted(burst)).toEqual([true, true, true, false]);
    expect(f.sleeps).toEqual([500, 500]);
  });

  it.each([
    [2, [500, 500, 500]],
    [0.5, [2000, 2000, 2000]],
    [4, [250, 250, 250]],
  ])('spaces requests to --max-rps %s', async (maxRps, expected) => {
    const f = fixture({ maxRps });
    f.pacer.release(await f.pacer.acquire(), {});
    for (let i = 0; i < 3; i++) f.pacer.release(await f.pacer.acquire(), {});
    expect(f.sleeps).toEqual(expected);
    expect(f.reasons.every((r) => r === `--max-rps ${maxRps}`)).toBe(true);
  });

  it('rejects a waiting caller when its signal aborts, and serves the next one', async () => {
    const f = fixture();
    const first = await f.pacer.acquire();
    const controller = new AbortController();
    const waiting = f.pacer.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    f.pacer.release(first, {});
    await expect(f.pacer.acquire()).resolves.toBe(2);
  });

  it('ignores a second release of the same ticket', async () => {
    const f = fixture();
    const a = await f.pacer.acquire();
    f.pacer.release(a, {});
    f.pacer.release(a, {});
    expect(f.pacer.active).toBe(0);
  });
});

/** A pacer on a virtual clock that records its sleeps. */
function clockedPacer() {
  let t = T0;
  const sleeps: number[] = [];
  const pacer = new Pacer({
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    random: () => 0,
    maxDelayMs: 30_000,
    onWait: () => {},
  });
  return { pacer, sleeps, advance: (ms: number) => (t += ms), now: () => t };
}

describe('Pacer with a bucket of one request', () => {
  it('paces it as a bucket from the first answer instead of waiting for each Reset like a fixed window', async () => {
    const f = fixture();
    // Limit 1, 0 left, full again within the next second: 1/s proven, and no refill can show.
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 1, 1));
    expect(f.pacer.ratePerSecond).toBeGreaterThan(0);
    const second = await f.pacer.acquire();
    expect(f.reasons).toEqual([WAIT_REASON.pace]);
    expect(f.sleeps[0]).toBeLessThanOrEqual(1000);
    f.pacer.release(second, f.rate(0, 1, 1));
    expect(f.pacer.ratePerSecond).toBeGreaterThan(0);
  });
});

describe('Pacer with a refilling bucket', () => {
  it('after seeing a refill, sends one request per estimated token interval instead of waiting for the reset', async () => {
    const { pacer, sleeps, advance } = clockedPacer();
    const headers = (remaining: number, resetAt: number) => ({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(resetAt / 1000),
    });
    // Bucket of 10 refilling at 10/s: full again 1 s after it is empty.
    pacer.release(await pacer.acquire(), headers(5, T0 + 1000)); // estimate 1000/4 = 250 ms
    advance(100);
    // Two more sent and answered; the second shows a refill (5 - 2 + 1 = 4 > 3).
    pacer.release(await pacer.acquire(), headers(4, T0 + 1000));
    pacer.release(await pacer.acquire(), headers(4, T0 + 1000)); // estimate (900/5)*1.02 = 183.6 ms
    for (let i = 0; i < 4; i++) pacer.release(await pacer.acquire(), null);
    expect(sleeps).toEqual([]);
    await pacer.acquire(); // budget spent: wait for the next token, not the whole reset
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(0);
    expect(sleeps[0]).toBeLessThanOrEqual(184);
  });

  it('after a 429 keeps pacing the bucket, slower, instead of waiting for the whole reset', async () => {
    const { pacer, sleeps, advance } = clockedPacer();
    const headers = (remaining: number) => ({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String((T0 + 2000) / 1000),
    });
    pacer.release(await pacer.acquire(), headers(5));
    advance(200);
    pacer.release(await pacer.acquire(), headers(6)); // refill seen
    const before = pacer.ratePerSecond!;
    pacer.release(await pacer.acquire(), headers(0), 429);
    await pacer.acquire();
    expect(pacer.ratePerSecond!).toBeLessThan(before);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThan(2000);
  });

  it.each([
    ['a bucket once a later answer names a later Reset before the earlier one came', [2000, 3000], true],
    ['a fixed window while the answers name the same Reset', [2000, 2000], false],
  ])('takes a tenant first seen as a fixed window for %s', async (_what, resets, bucket) => {
    const { pacer, advance, now } = clockedPacer();
    const headers = (remaining: number, resetAt: number) => ({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(resetAt / 1000),
    });
    pacer.release(await pacer.acquire(), headers(0, T0 + 1000));
    pacer.release(await pacer.acquire(), headers(0, T0 + 1000), 429); // the probe: a window, it seems
    await pacer.acquire().then((t) => pacer.release(t, headers(8, T0 + resets[0]!)));
    expect(now()).toBeGreaterThanOrEqual(T0 + 1000);
    advance(100);
    pacer.release(await pacer.acquire(), headers(7, T0 + resets[1]!));
    expect(pacer.ratePerSecond !== undefined).toBe(bucket);
  });
});
