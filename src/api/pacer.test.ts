import { describe, expect, it } from 'vitest';
import { Pacer } from './pacer.js';

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
      t = Math.max(t, t + ms);
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
async function granted(promises: Promise<void>[]): Promise<boolean[]> {
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
    f.pacer.release(f.rate(9, 1));
    expect(await granted(waiting)).toEqual([true, true, true]);
  });

  it('stops pacing from headers when the tenant sends none', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release({});
    const all = Array.from({ length: 20 }, () => f.pacer.acquire());
    expect((await granted(all)).every(Boolean)).toBe(true);
    expect(f.sleeps).toEqual([]);
  });

  it('spends the remaining budget, then holds new requests until the reset', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release(f.rate(2, 3));
    await f.pacer.acquire();
    f.pacer.release(null);
    await f.pacer.acquire();
    f.pacer.release(null);
    const start = f.now();
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([3000]);
    expect(f.now() - start).toBe(3000);
    expect(f.reasons[0]).toMatch(/rate limit reached .*waiting for the window to reset/);
  });

  it('counts requests in flight against the budget and waits for their answers', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release(f.rate(10, 1));
    const first = Array.from({ length: 3 }, () => f.pacer.acquire());
    await Promise.all(first); // 3 in flight
    f.pacer.acquire(); // 4 in flight
    await Promise.resolve();
    f.pacer.release(f.rate(4, 1)); // 3 in flight, not yet counted by the tenant: 1 left
    const more = [f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(f.rate(3, 1)); // the tenant counted one more; 3 in flight: 0 left
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(f.rate(3, 1)); // 2 in flight: 1 left
    expect(await granted(more)).toEqual([true, true]);
    expect(f.sleeps).toEqual([]);
  });

  it('holds everyone after a 429 until the reset it names', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release(f.rate(5, 1));
    await f.pacer.acquire();
    f.pacer.release({ 'x-ratelimit-reset': String(Math.floor(f.now() / 1000) + 2) }, 429);
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([2000]);
  });

  it('uses Retry-After as the reset of a 429 without X-RateLimit-Reset', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release({ 'retry-after': '4' }, 429);
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([4000]);
  });

  it('does not let a late answer from the same window raise the budget', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release(f.rate(0, 2));
    f.pacer.release(f.rate(5, 2)); // an older answer arriving late
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([2000]);
  });

  it('sends a single probe after a wait cut short by maxDelayMs', async () => {
    const f = fixture({ maxDelayMs: 1000 });
    await f.pacer.acquire();
    f.pacer.release(f.rate(0, 60));
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([1000]);
    const next = [f.pacer.acquire()];
    expect(await granted(next)).toEqual([false]);
  });

  it('allows the full limit again after the reset', async () => {
    const f = fixture();
    await f.pacer.acquire();
    f.pacer.release(f.rate(0, 1, 3));
    const burst = Array.from({ length: 4 }, () => f.pacer.acquire());
    expect(await granted(burst)).toEqual([true, true, true, false]);
    expect(f.sleeps).toEqual([1000]);
  });

  it.each([
    [2, [500, 500, 500]],
    [0.5, [2000, 2000, 2000]],
    [4, [250, 250, 250]],
  ])('spaces requests to --max-rps %s', async (maxRps, expected) => {
    const f = fixture({ maxRps });
    await f.pacer.acquire();
    f.pacer.release({});
    for (let i = 0; i < 3; i++) {
      await f.pacer.acquire();
      f.pacer.release({});
    }
    expect(f.sleeps).toEqual(expected);
    expect(f.reasons.every((r) => r === `--max-rps ${maxRps}`)).toBe(true);
  });

  it('rejects a waiting caller when its signal aborts', async () => {
    const f = fixture();
    await f.pacer.acquire();
    const controller = new AbortController();
    const waiting = f.pacer.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    f.pacer.release({});
    await expect(f.pacer.acquire()).resolves.toBeUndefined();
  });
});
