/**
 * A tenant's token bucket (the emulator's RateLimiter) and an apply's worker
 * pool on one virtual clock: each request takes `latencyMs` (counted by the
 * bucket half way), so a whole run of minutes simulates in milliseconds and
 * pacing is judged without a timed assertion.
 */
import { Pacer } from '../src/api/pacer.js';
import { RateLimiter, rateLimitHeaders } from '../src/emulator/rate-limit.js';

export interface SimOptions {
  rate: number;
  burst: number;
  requests: number;
  parallelism?: number;
  latencyMs?: number;
  /** Extra latency drawn from [0, jitterMs), from a fixed sequence. */
  jitterMs?: number;
  /** Another client of the same bucket: requests per second, from `from` to `to` ms. */
  other?: { perSecond: number; from?: number; to?: number };
  /** Start time (ms since the epoch) of the run. */
  start?: number;
}

export interface SimResult {
  wallMs: number;
  floorMs: number;
  ratio: number;
  sent: number;
  status429: number;
  otherSent: number;
  /** Accepted requests of ours by time (ms since start). */
  accepted: number[];
  pacer: Pacer;
}

/** A deterministic source in [0, 1). */
function sequence(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

export async function simulate(o: SimOptions): Promise<SimResult> {
  const start = o.start ?? 1_700_000_000_437;
  let t = start;
  const timers: { at: number; seq: number; fire: () => void }[] = [];
  let seq = 0;
  const after = (ms: number): Promise<void> =>
    new Promise((resolve) => timers.push({ at: t + Math.max(0, ms), seq: seq++, fire: resolve }));
  const random = sequence(7);
  const limiter = new RateLimiter(o.rate, o.burst, () => t);
  const pacer = new Pacer({
    now: () => t,
    sleep: (ms) => after(ms),
    random,
    maxDelayMs: 30_000,
    onWait: () => {},
  });
  const latency = o.latencyMs ?? 2;
  let next = 0;
  let status429 = 0;
  let sent = 0;
  const accepted: number[] = [];
  const worker = async (): Promise<void> => {
    while (next < o.requests) {
      next += 1;
      for (;;) {
        const ticket = await pacer.acquire();
        sent += 1;
        const l = latency + (o.jitterMs ? random() * o.jitterMs : 0);
        await after(l / 2);
        const d = limiter.take('tenant');
        await after(l / 2);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(rateLimitHeaders(d))) headers[k.toLowerCase()] = v;
        if (process.env.PACING_TRACE) {
          const p = pacer as unknown as Record<string, unknown>;
          console.log(
            `${(t - start).toFixed(0)} #${ticket} ${d.allowed ? 'ok ' : '429'} rem=${d.remaining} reset=${d.resetSec * 1000 - start} ${String(p.refill)} rate=${((p.rate as number) * 1000).toFixed(2)} level=${(p.level as number)?.toFixed(2)}`,
          );
        }
        pacer.release(ticket, headers, d.allowed ? 201 : 429);
        if (d.allowed) {
          accepted.push(t - start);
          break;
        }
        status429 += 1;
      }
    }
  };
  let otherSent = 0;
  let finished = false;
  const other = async (): Promise<void> => {
    if (!o.other) return;
    const gap = 1000 / o.other.perSecond;
    await after(o.other.from ?? 0);
    while (!finished && (o.other.to === undefined || t - start < o.other.to)) {
      limiter.take('tenant');
      otherSent += 1;
      await after(gap);
    }
  };
  const work = Promise.all(Array.from({ length: o.parallelism ?? 10 }, worker)).then(() => {
    finished = true;
  });
  void other();
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve));
    if (finished) break;
    if (timers.length === 0) throw new Error('simulation stalled: nothing scheduled');
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const timer = timers.shift()!;
    t = Math.max(t, timer.at);
    timer.fire();
  }
  await work;
  const wallMs = t - start;
  const floorMs = ((o.requests - o.burst) / o.rate) * 1000;
  return { wallMs, floorMs, ratio: wallMs / floorMs, sent, status429, otherSent, accepted, pacer };
}
