import { describe, expect, it } from 'vitest';
import { Pacer, WAIT_REASON } from './pacer.js';

const T0 = 1_700_000_000_000;

function fixture(
  opts: {
    maxRps?: number;
    maxDelayMs?: number;
    share?: number;
    earlyMs?: number;
    opening?: number;
    /** How early each timer fires in turn, ms (then on time). */
    firesEarly?: number[];
  } = {},
) {
  const firesEarly = [...(opts.firesEarly ?? [])];
  let t = T0;
  const sleeps: number[] = [];
  const reasons: string[] = [];
  const pacer = new Pacer({
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      // `earlyMs`: a timer that fires before the clock has moved as far (Node's may, by a millisecond).
      t += Math.max(0, ms - (opts.earlyMs ?? 0) - (firesEarly.shift() ?? 0));
    },
    random: () => 0,
    maxDelayMs: opts.maxDelayMs ?? 30_000,
    onWait: (_ms, cause) => reasons.push(cause.kind === 'rate-limit' ? cause.reason : JSON.stringify(cause)),
    ...(opts.maxRps !== undefined ? { maxRps: opts.maxRps } : {}),
    ...(opts.share !== undefined ? { share: opts.share } : {}),
    ...(opts.opening !== undefined ? { opening: opts.opening } : {}),
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

  it('sends the first round remembered facts prove before the first answer, then paces on the answers', async () => {
    const f = fixture({ opening: 3 });
    const waiting = Array.from({ length: 5 }, () => f.pacer.acquire());
    expect(await granted(waiting)).toEqual([true, true, true, false, false]);
    // The first answer counts the two others in flight against its Remaining: 2 left, one goes (the last is held as a probe).
    f.pacer.release(await waiting[0]!, f.rate(4, 1));
    expect(await granted(waiting)).toEqual([true, true, true, true, false]);
    expect(f.sleeps).toEqual([]);
  });

  it('counts the first round in requests sent, not in flight: one that got no answer gives no second turn', async () => {
    const f = fixture({ opening: 2 });
    const waiting = [f.pacer.acquire(), f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(waiting)).toEqual([true, true, false]);
    f.pacer.release(await waiting[0]!, null);
    expect(await granted(waiting)).toEqual([true, true, false]);
  });

  it('tells what its answers taught for the next run: the level left, when, and the Reset', async () => {
    const f = fixture();
    expect(f.pacer.facts()).toBeUndefined();
    const ticket = await f.pacer.acquire();
    f.pacer.release(ticket, f.rate(4, 1));
    expect(f.pacer.facts()).toEqual({
      limit: 10,
      remaining: 4,
      at: T0,
      resetAt: Math.floor(T0 / 1000) * 1000 + 1000,
      refill: 'unknown',
    });
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

  it('spends Remaining, then waits for the Reset of a window and sends one opener before the rest', async () => {
    const f = fixture();
    // A burst of 3, the next addition at the next whole second (T0 is on a second:
    // 1 s away). The last token waits as a probe until a continuous bucket would
    // have refilled one (2 gone by the Reset: 2/s, so 500 ms); its answer names
    // the same Reset (so it came before it) and shows none came back: a window.
    f.pacer.release(await f.pacer.acquire(), f.rate(2, 1, 3));
    f.pacer.release(await f.pacer.acquire(), f.rate(1, 1, 3));
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 1, 3));
    const opener = await f.pacer.acquire();
    expect(f.sleeps).toEqual([500, 500]);
    expect(f.reasons).toEqual([WAIT_REASON.pace, WAIT_REASON.reset]);
    const rest = [f.pacer.acquire(), f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(rest)).toEqual([false, false, false]); // its answer tells what was added
    f.pacer.release(opener, f.rate(1, 1, 3)); // 2 added: 1 left
    expect(await granted(rest)).toEqual([true, false, false]);
    expect(f.pacer.refill).toBe('window');
  });

  it('holds the last token as a probe and takes the tenant for a window when it shows no refill before the Reset', async () => {
    const f = fixture();
    const dated = (remaining: number) => ({ ...f.rate(remaining, 1), date: new Date(f.now()).toUTCString() });
    f.pacer.release(await f.pacer.acquire(), dated(8)); // 8 missing by the Reset 1 s away: ≥ 8/s if continuous
    for (let left = 7; left >= 1; left--) f.pacer.release(await f.pacer.acquire(), dated(left));
    const probe = await f.pacer.acquire();
    expect(f.sleeps).toEqual([125]); // a continuous bucket refills one in 1/8 s
    f.pacer.release(probe, dated(0)); // none came back: a window
    expect(f.pacer.refill).toBe('window');
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([125, 875]); // then to the Reset
  });

  it('takes the tenant for a continuous bucket when the probe shows a refill, and paces it', async () => {
    const f = fixture();
    const dated = (remaining: number) => ({ ...f.rate(remaining, 1), date: new Date(f.now()).toUTCString() });
    f.pacer.release(await f.pacer.acquire(), dated(8));
    for (let left = 7; left >= 1; left--) f.pacer.release(await f.pacer.acquire(), dated(left));
    const probe = await f.pacer.acquire();
    f.pacer.release(probe, dated(1)); // one refilled while it waited
    expect(f.pacer.refill).toBe('continuous');
    expect(f.pacer.ratePerSecond).toBeGreaterThanOrEqual(8);
    await f.pacer.acquire();
    await f.pacer.acquire();
    expect(f.sleeps.slice(1).every((ms) => ms <= 125)).toBe(true); // a token's time, not the whole Reset
  });

  it('spends the last token at once when its answer could not show a refill (a token a second or slower: every answer names a later Reset)', async () => {
    const f = fixture();
    const three = (remaining: number, resetInSec: number) => f.rate(remaining, resetInSec, 3);
    f.pacer.release(await f.pacer.acquire(), three(2, 1)); // full before it: 1/s proven, and no faster than that shows
    f.pacer.release(await f.pacer.acquire(), three(1, 2));
    // Held as a probe, it would go a second later and name the next Reset either way.
    f.pacer.release(await f.pacer.acquire(), three(0, 3));
    expect(f.sleeps).toEqual([]);
    // Three Resets a second apart in no time: a bucket draining, paced at a token a second.
    expect(f.pacer.refill).toBe('continuous');
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([1000]);
  });

  it('counts a continuous bucket from the answer that showed it full, at the newest proven rate, not at the slower rates proven before', async () => {
    const f = fixture();
    const three = (remaining: number, resetInSec: number) => f.rate(remaining, resetInSec, 3);
    f.pacer.release(await f.pacer.acquire(), three(2, 2)); // full before it; Reset rounded up: 0.5/s proven
    f.pacer.release(await f.pacer.acquire(), three(1, 3));
    f.pacer.release(await f.pacer.acquire(), three(0, 4)); // 3 tokens by +4 s: 0.75/s
    expect(f.pacer.refill).toBe('continuous');
    // Sent 4/3 s in, at 0.75/s; its answer: 4 tokens back by +5 s (0.8/s).
    f.pacer.release(await f.pacer.acquire(), three(0, 4));
    await f.pacer.acquire();
    // From the full bucket at T0 the fifth token is back by 2 ÷ 0.8/s = 2.5 s; counted on from
    // the fourth request's level (taken on at 0.75/s) it would come 1.25 s after it, at 2.58 s.
    expect(f.now() - T0).toBeLessThan(2550);
  });

  it('a wait cut short to hear an answer due is not counted as served, even when the clock comes back early', async () => {
    const f = fixture({ earlyMs: 1 });
    const three = (remaining: number, resetInSec: number) => f.rate(remaining, resetInSec, 3);
    f.pacer.release(await f.pacer.acquire(), three(2, 1));
    f.pacer.release(await f.pacer.acquire(), three(1, 2));
    f.pacer.release(await f.pacer.acquire(), three(0, 3));
    await f.pacer.acquire(); // in flight: its answer is due within two round trips
    const sentAt = f.now();
    await f.pacer.acquire();
    // Not at the end of the short wait: only once a token is back (a second, less the early clock).
    expect(f.now() - sentAt).toBeGreaterThanOrEqual(990);
  });

  it('sends nothing before the Reset when its timer fires early on a clock that moved', async () => {
    const f = fixture({ firesEarly: [30] });
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 1)); // nothing left until the next second
    await f.pacer.acquire();
    expect(f.now()).toBeGreaterThanOrEqual(T0 + 1000);
    expect(f.sleeps).toEqual([1000, 30]);
  });

  it('paces a continuous bucket at its proven rate when a timer fires early', async () => {
    const f = fixture({ firesEarly: [40] });
    const three = (remaining: number, resetInSec: number) => f.rate(remaining, resetInSec, 3);
    f.pacer.release(await f.pacer.acquire(), three(2, 1));
    f.pacer.release(await f.pacer.acquire(), three(1, 2));
    f.pacer.release(await f.pacer.acquire(), three(0, 3)); // continuous: a second a token at most
    const sentAt = f.now();
    f.pacer.release(await f.pacer.acquire(), three(0, 4));
    // The level counts from the last answer: a token is back a second (3 tokens ÷ 3 s) later, not 40 ms before.
    expect(f.now() - sentAt).toBeGreaterThanOrEqual(1000);
  });

  it('takes a tenant for a continuous bucket when its Reset moves on faster than a window could (a window keeps its Reset until its clock passes it)', async () => {
    const f = fixture();
    const dated = (remaining: number, resetInSec: number) => ({
      ...f.rate(remaining, resetInSec),
      date: new Date(f.now()).toUTCString(),
    });
    f.pacer.release(await f.pacer.acquire(), dated(5, 1));
    f.pacer.release(await f.pacer.acquire(), dated(4, 2));
    // A window whose clock is a second ahead of ours could say so; its Date cannot tell.
    expect(f.pacer.refill).toBe('unknown');
    f.pacer.release(await f.pacer.acquire(), dated(3, 3)); // but it cannot pass two seconds at once
    expect(f.pacer.refill).toBe('continuous');
  });

  it('counts requests sent after the reporting one against the budget, and waits for their answers', async () => {
    const f = fixture();
    // No Reset: nothing to probe or wait for, only the count.
    const left = (remaining: number) => ({
      'x-ratelimit-limit': '20',
      'x-ratelimit-remaining': String(remaining),
    });
    f.pacer.release(await f.pacer.acquire(), left(10)); // ticket 1
    const [t2, t3, t4, t5] = await Promise.all(Array.from({ length: 4 }, () => f.pacer.acquire()));
    f.pacer.release(t2!, left(4)); // 3 sent after ticket 2 are in flight: 1 left
    const more = [f.pacer.acquire(), f.pacer.acquire()];
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(t3!, left(3)); // tickets 4, 5, 6 in flight after 3: 0 left
    expect(await granted(more)).toEqual([true, false]);
    f.pacer.release(t4!, left(3)); // tickets 5, 6 after 4: 1 left
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
    expect(f.sleeps).toEqual([2000]);
  });

  it('gives back the request counted twice when a newer answer shows more left in the same window (the tenant served it before the level came)', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(9, 2)); // ticket 1
    const [, t3, t4] = await Promise.all([f.pacer.acquire(), f.pacer.acquire(), f.pacer.acquire()]);
    f.pacer.release(t3!, f.rate(5, 2)); // 5 left, less tickets 2 and 4 in flight: 3
    // Ticket 4 was served before ticket 3 (more left, same Reset): counted in ticket 3's 5 and
    // again as in flight, so 4 are left for us (ticket 2 may still take one), not 6 − 1 = 5.
    f.pacer.release(t4!, f.rate(6, 2));
    const more = Array.from({ length: 5 }, () => f.pacer.acquire());
    // Three go; the fourth (the window's last token) waits to go as a probe once the rest are in.
    expect(await granted(more)).toEqual([true, true, true, false, false]);
  });

  it('lowers the level when an older answer in the same window shows fewer left (another client took them)', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(9, 2)); // ticket 1
    const [t2, t3] = await Promise.all([f.pacer.acquire(), f.pacer.acquire()]);
    f.pacer.release(t3!, f.rate(7, 2)); // 7 left, less ticket 2 in flight: 6
    // Ticket 2, served after ticket 3, shows 3 left: someone else took 3 in between.
    f.pacer.release(t2!, f.rate(3, 2));
    const more = Array.from({ length: 5 }, () => f.pacer.acquire());
    // Two go; the third (the last token) waits to go as a probe after their answers.
    expect(await granted(more)).toEqual([true, true, false, false, false]);
  });

  it('reads Reset on the tenant clock: 3 s behind ours (its Date says so), its next second not past but up to 2 s away', async () => {
    const f = fixture();
    const behind = (remaining: number) => ({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(Math.floor((f.now() - 3000) / 1000) + 1),
      date: new Date(f.now() - 3000).toUTCString(),
    });
    f.pacer.release(await f.pacer.acquire(), behind(0));
    await f.pacer.acquire();
    // Read on our clock, that Reset was 2 s ago (a 429). Date places the tenant's clock only
    // to within seconds (stamped by a front end, to the second, maybe stale): wait for the latest.
    expect(f.sleeps).toEqual([2000]);
    expect(f.reasons).toEqual([WAIT_REASON.reset]);
  });

  it('after a 429 to a request sent at the Reset it planned (no Date, clocks apart), waits longer each time', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 1));
    let ticket = await f.pacer.acquire();
    expect(f.sleeps).toEqual([1000]);
    const resetMs = f.now(); // the tenant has not reached it yet
    const refused = {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(resetMs / 1000),
    };
    f.pacer.release(ticket, refused, 429);
    ticket = await f.pacer.acquire();
    const first = f.now() - resetMs;
    expect(first).toBeGreaterThanOrEqual(100);
    f.pacer.release(ticket, refused, 429);
    await f.pacer.acquire();
    expect(f.now() - resetMs).toBeGreaterThan(first);
  });

  // The trace of issue 34: after an answer with Remaining 0, a burst of ten went within 30 ms,
  // all answered 429, then retries every few ms inside the same window.
  it('after Remaining 0 and a 429 naming the Reset, sends nothing more until that Reset, then one opener', async () => {
    const f = fixture();
    // Its front end stamps Date 800 ms behind the limiter, to the second.
    const answer = (remaining: number) => ({
      ...f.rate(remaining, 1),
      date: new Date(Math.floor((f.now() - 800) / 1000) * 1000).toUTCString(),
    });
    f.pacer.release(await f.pacer.acquire(), answer(3));
    const sent = await Promise.all([f.pacer.acquire(), f.pacer.acquire()]);
    const waiting = Array.from({ length: 10 }, () => f.pacer.acquire());
    expect(await granted(waiting)).toEqual(Array(10).fill(false)); // the last token waits for their answers
    f.pacer.release(sent[0]!, answer(0)); // another client took one
    f.pacer.release(sent[1]!, answer(0), 429);
    const opener = await waiting[0]!;
    expect(f.sleeps).toEqual([1000]); // to the Reset the answers name, not a few ms
    expect(await granted(waiting.slice(1))).toEqual(Array(9).fill(false)); // its answer first
    f.pacer.release(opener, { ...answer(1), 'x-ratelimit-reset': String(T0 / 1000 + 2) });
    expect(await granted(waiting.slice(1))).toEqual([true, ...Array(8).fill(false)]);
  });

  it('holds everyone after a 429 that names no time to come back, longer after each', async () => {
    const f = fixture();
    f.pacer.release(await f.pacer.acquire(), {});
    f.pacer.release(await f.pacer.acquire(), {}, 429);
    f.pacer.release(await f.pacer.acquire(), {}, 429);
    await f.pacer.acquire();
    expect(f.sleeps).toHaveLength(2);
    expect(f.sleeps[0]).toBeGreaterThanOrEqual(250); // half of 0.5 s at least
    expect(f.sleeps[1]).toBeGreaterThan(f.sleeps[0]!);
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

  it('waits a whole minute for the Reset of a per-minute window, and sends a single request after a wait cut short', async () => {
    const f = fixture({ maxDelayMs: 1000 });
    f.pacer.release(await f.pacer.acquire(), f.rate(0, 60));
    await f.pacer.acquire();
    expect(f.sleeps).toEqual([60_000]);
    const g = fixture({ maxDelayMs: 1000 });
    g.pacer.release(await g.pacer.acquire(), g.rate(0, 3600)); // an hour: capped
    await g.pacer.acquire();
    expect(g.sleeps).toEqual([65_000]);
    expect(await granted([g.pacer.acquire()])).toEqual([false]);
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
    expect(f.reasons.every((r) => r === JSON.stringify({ kind: 'max-rps', rate: maxRps }))).toBe(true);
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

describe('Pacer with a bucket of one request (continuous)', () => {
  // Full again within the next second, a second or more away: the Reset proves about 1/s only.
  const one = (t: number) => ({
    'x-ratelimit-limit': '1',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(Math.floor(t / 1000) + 1),
  });
  /** clockedPacer whose sleep gives up after a few rounds (a loop on the virtual clock never ends). */
  function bounded() {
    const f = clockedPacer();
    const sleep = f.pacer['options'].sleep;
    f.pacer['options'].sleep = async (ms: number) => {
      if (f.sleeps.length >= 12) throw new Error(`still sleeping after ${f.sleeps.join(', ')} ms`);
      await sleep(ms);
    };
    return f;
  }

  it('waits for the answer in flight, then counts the next token from its arrival, not from the sending', async () => {
    const { pacer, sleeps, advance, now } = bounded();
    pacer.release(await pacer.acquire(), one(now()));
    const second = await pacer.acquire();
    expect(sleeps).toHaveLength(1);
    const third = pacer.acquire();
    // Its token is counted from the answer still to come: no sleep planned on the old rate.
    expect(await granted([third])).toEqual([false]);
    expect(sleeps).toHaveLength(1);
    advance(400); // a slow answer: the tenant may have served it just before it arrived
    const arrival = now();
    pacer.release(second, one(now()));
    await third;
    expect(((now() - arrival) * pacer.ratePerSecond!) / 1000).toBeGreaterThanOrEqual(1 - 1e-9);
  });
});

describe('Pacer with a bucket of one request, after a 429', () => {
  it('backs off to the rate its last accepted request went at, not to what a lone Reset proves', async () => {
    const { pacer, now } = clockedPacer();
    // Full again within the next second, a second or more away: one answer proves about 1/s only.
    const one = () => ({
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.floor(now() / 1000) + 1),
    });
    pacer.release(await pacer.acquire(), one());
    for (let i = 0; i < 4; i++) pacer.release(await pacer.acquire(), one());
    pacer.release(await pacer.acquire(), one(), 429); // the first 429: what was proven is forgotten
    pacer.release(await pacer.acquire(), one());
    pacer.release(await pacer.acquire(), one());
    const before = pacer.ratePerSecond!;
    pacer.release(await pacer.acquire(), one(), 429);
    expect(pacer.ratePerSecond!).toBeGreaterThanOrEqual(before * 0.8);
  });
});

describe('Pacer with a continuous bucket', () => {
  const dated = (t: number, remaining: number, resetAt: number) => ({
    'x-ratelimit-limit': '10',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetAt / 1000),
    date: new Date(t).toUTCString(),
  });

  it('once a refill shows inside a window, sends one request per token interval instead of waiting for the Reset', async () => {
    const { pacer, sleeps, advance, now } = clockedPacer();
    // Bucket of 10 refilling at 10/s: full again 1 s after it is empty.
    pacer.release(await pacer.acquire(), dated(now(), 5, T0 + 1000));
    advance(100);
    pacer.release(await pacer.acquire(), dated(now(), 4, T0 + 1000));
    advance(1);
    pacer.release(await pacer.acquire(), dated(now(), 4, T0 + 1000)); // as many left as before: refilled
    expect(pacer.refill).toBe('continuous');
    for (let i = 0; i < 4; i++) pacer.release(await pacer.acquire(), null);
    expect(sleeps).toEqual([]);
    await pacer.acquire(); // budget spent: wait for the next token, not the whole reset
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(0);
    expect(sleeps[0]).toBeLessThanOrEqual(184);
  });

  it('after a 429 keeps pacing the bucket, slower, instead of waiting for the whole reset', async () => {
    const { pacer, sleeps, advance, now } = clockedPacer();
    pacer.release(await pacer.acquire(), dated(now(), 5, T0 + 2000));
    advance(200);
    pacer.release(await pacer.acquire(), dated(now(), 6, T0 + 2000)); // refill seen
    const before = pacer.ratePerSecond!;
    pacer.release(await pacer.acquire(), dated(now(), 0, T0 + 2000), 429);
    await pacer.acquire();
    expect(pacer.ratePerSecond!).toBeLessThan(before);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeLessThan(2000);
  });

  it('stays a window while the answers name the same Reset and only lose tokens', async () => {
    const { pacer, advance, now } = clockedPacer();
    pacer.release(await pacer.acquire(), dated(now(), 8, T0 + 1000));
    advance(100);
    pacer.release(await pacer.acquire(), dated(now(), 7, T0 + 1000));
    advance(100);
    pacer.release(await pacer.acquire(), dated(now(), 5, T0 + 1000)); // another client took one
    expect(pacer.refill).toBe('unknown');
    expect(pacer.ratePerSecond).toBeUndefined();
  });
});

describe('Pacer with --max-rate', () => {
  it('takes 0.01 % of a tenant whose bucket stays full as a share of at least its burst a minute: slow, never hours', async () => {
    const f = fixture({ share: 0.0001 });
    // What an unlimited tenant answers: 10,000 a window, always full again by the next second.
    const full = () => ({
      'x-ratelimit-limit': '10000',
      'x-ratelimit-remaining': '9999',
      'x-ratelimit-reset': String(Math.floor(f.now() / 1000) + 1),
      date: new Date(f.now()).toUTCString(),
    });
    for (let i = 0; i < 6; i++) f.pacer.release(await f.pacer.acquire(), full());
    // 0.01 % of 10,000 a minute is one request a minute: no wait much longer, none much shorter once known.
    expect(Math.max(...f.sleeps)).toBeLessThanOrEqual(2 * 60_000);
    expect(f.sleeps[f.sleeps.length - 1]).toBeGreaterThanOrEqual(60_000);
  });

  it('sends a share of the burst at first, then waits for a window to turn to learn the sustained rate', async () => {
    const f = fixture({ share: 0.3 });
    const dated = (remaining: number, resetInSec: number) => ({
      ...f.rate(remaining, resetInSec),
      date: new Date(f.now()).toUTCString(),
    });
    f.pacer.release(await f.pacer.acquire(), dated(9, 1)); // burst 10: 3 for us, this one included
    f.pacer.release(await f.pacer.acquire(), dated(8, 1));
    f.pacer.release(await f.pacer.acquire(), dated(7, 1));
    const next = await f.pacer.acquire();
    expect(f.sleeps).toEqual([1000]); // to the Reset: the sustained rate is not known yet
    f.pacer.release(next, dated(8, 1)); // the window added 2 (7 → 9, less this one)
    expect(f.pacer.sustainedPerSecond).toBe(2);
    await f.pacer.acquire();
    expect(f.sleeps[1]).toBe(Math.ceil(2000 / 0.6)); // 30 % of 2/s, for that one and this one
  });
});
