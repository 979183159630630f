/**
 * A tenant's rate limiter (the emulator's: the documented window model or the
 * continuous token bucket) and an apply's worker pool on one virtual clock:
 * each request takes `latencyMs` (served by the limiter half way), so a whole
 * run of minutes simulates in milliseconds and pacing is judged without a
 * timed assertion. The tenant's clock may run `skewMs` ahead of ours; its
 * answers carry the X-RateLimit-* headers (unless `headers` is false) and a
 * Date header in its own time (unless `date` is false).
 */
import { Pacer } from '../src/api/pacer.js';
import { RateLimiter, WindowBucket, rateLimitHeaders, type Limiter } from '../src/emulator/rate-limit.js';
import { DocBucket } from './helpers/doc-limiter.mjs';

export interface SimOptions {
  /** Sustained rate: tokens per second (continuous) or per window (window). */
  rate: number;
  burst: number;
  requests: number;
  /** The limiter's model. Default 'continuous'. */
  model?: 'continuous' | 'window';
  /**
   * Whose window limiter: the emulator's (default) or the one written from the
   * docs alone (test/helpers/doc-limiter.mjs), which shares no code with it.
   */
  server?: 'emulator' | 'docs';
  /** Window length of the window model, ms. Default 1000. */
  windowMs?: number;
  /** The tenant's clock minus ours, ms. Default 0. */
  skewMs?: number;
  /**
   * The Date header: 'exact' (the limiter's second when it answered), 'second'
   * (a front end's second, refreshed once a second and up to `staleMs` stale, as
   * Node's http server stamps it), 'absent'. true = 'exact', false = 'absent'.
   * Default 'exact'.
   */
  date?: boolean | DateVariant;
  /** The front end's clock (the Date header's) minus the limiter's, ms. Default 0. */
  frontEndOffsetMs?: number;
  /** 'second': the largest staleness of Date, ms (each answer draws one in [0, staleMs)). Default 1000. */
  staleMs?: number;
  /** Send the X-RateLimit-* headers. Default true. */
  headers?: boolean;
  parallelism?: number;
  latencyMs?: number;
  /** Extra latency drawn from [0, jitterMs), from a fixed sequence. */
  jitterMs?: number;
  /** Another client of the same bucket: requests per second, from `from` to `to` ms. */
  other?: { perSecond: number; from?: number; to?: number };
  /** Start time (ms since the epoch) of the run. */
  start?: number;
  /** The pacer's share of the sustained rate (--max-rate). */
  share?: number;
  /** Give up after this many requests (a run that would never end). */
  maxSent?: number;
}

export type DateVariant = 'exact' | 'second' | 'absent';

export interface SimResult {
  wallMs: number;
  floorMs: number;
  ratio: number;
  /** First to last accepted request, as the tenant served them. */
  httpMs: number;
  /** The least first-to-last time any client could have had (window model: from the boundaries). */
  httpFloorMs: number;
  httpRatio: number;
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

function dateVariant(o: SimOptions): DateVariant {
  if (o.date === undefined || o.date === true) return 'exact';
  return o.date === false ? 'absent' : o.date;
}

/** One limiter decision, as answer headers with the status. */
type Take = () => Record<string, string>;

function emulatorTake(limiter: Limiter): Take {
  return () => {
    const d = limiter.take('tenant');
    return { status: d.allowed ? '201' : '429', ...rateLimitHeaders(d) };
  };
}

function docsTake(bucket: DocBucket, now: () => number): Take {
  return () => {
    const { ok, headers } = bucket.admit(now());
    return { status: ok ? '201' : '429', ...headers };
  };
}

function answerHeaders(
  o: SimOptions,
  take: Take,
  tenantNow: number,
  random: () => number,
): Record<string, string> {
  const { status, ...rate } = take();
  const headers: Record<string, string> = { status: status! };
  if (o.headers !== false) {
    for (const [k, v] of Object.entries(rate)) headers[k.toLowerCase()] = v;
  }
  const variant = dateVariant(o);
  if (variant !== 'absent') {
    const stale = variant === 'second' ? random() * (o.staleMs ?? 1000) : 0;
    const front = tenantNow + (o.frontEndOffsetMs ?? 0) - stale;
    headers.date = new Date(Math.floor(front / 1000) * 1000).toUTCString();
  }
  return headers;
}

/** Window model: the earliest time the last of our requests could be served, given the first. */
function windowFloor(o: SimOptions, firstServed: number): number {
  const w = o.windowMs ?? 1000;
  const step = Math.min(o.rate, o.burst);
  const windows = Math.ceil(Math.max(0, o.requests - o.burst) / step);
  if (windows === 0) return 0;
  const tenantFirst = firstServed + (o.skewMs ?? 0);
  return (Math.floor(tenantFirst / w) + windows) * w - tenantFirst;
}

export async function simulate(o: SimOptions): Promise<SimResult> {
  const start = o.start ?? 1_700_000_000_437;
  const skew = o.skewMs ?? 0;
  let t = start;
  const timers: { at: number; seq: number; fire: () => void }[] = [];
  let seq = 0;
  const after = (ms: number): Promise<void> =>
    new Promise((resolve) => timers.push({ at: t + Math.max(0, ms), seq: seq++, fire: resolve }));
  const random = sequence(7);
  const dateRandom = sequence(11);
  const tenantClock = () => t + skew;
  const limiter: Limiter =
    o.model === 'window'
      ? new WindowBucket({ perWindow: o.rate, burst: o.burst, windowMs: o.windowMs ?? 1000 }, tenantClock)
      : new RateLimiter(o.rate, o.burst, tenantClock);
  const take =
    o.server === 'docs' && o.model === 'window'
      ? docsTake(
          new DocBucket({ burst: o.burst, perWindow: o.rate, windowSec: (o.windowMs ?? 1000) / 1000 }),
          tenantClock,
        )
      : emulatorTake(limiter);
  const pacer = new Pacer({
    now: () => t,
    sleep: (ms) => after(ms),
    random,
    maxDelayMs: 30_000,
    onWait: (ms: number) => {
      if (process.env.PACING_TRACE) console.log(`${(t - start).toFixed(0)} wait ${ms}`);
    },
    ...(o.share !== undefined ? { share: o.share } : {}),
  } as ConstructorParameters<typeof Pacer>[0]);
  const latency = o.latencyMs ?? 2;
  let next = 0;
  let status429 = 0;
  let sent = 0;
  const accepted: number[] = [];
  const served: number[] = [];
  const worker = async (): Promise<void> => {
    while (next < o.requests) {
      next += 1;
      for (;;) {
        if (o.maxSent !== undefined && sent >= o.maxSent) throw new Error(`gave up after ${sent} requests`);
        const ticket = await pacer.acquire();
        sent += 1;
        const l = latency + (o.jitterMs ? random() * o.jitterMs : 0);
        await after(l / 2);
        const servedAt = t;
        const { status, ...headers } = answerHeaders(o, take, tenantClock(), dateRandom);
        await after(l / 2);
        const ok = status === '201';
        if (process.env.PACING_TRACE) {
          const p = pacer as unknown as Record<string, unknown>;
          console.log(
            `${(t - start).toFixed(0)} #${ticket} ${ok ? 'ok ' : '429'} rem=${headers['x-ratelimit-remaining']} reset=${Number(headers['x-ratelimit-reset']) * 1000 - skew - start} ${String(p.refill ?? p.model)} rate=${((p.rate as number) * 1000).toFixed(2)} level=${(p.level as number)?.toFixed(2)}`,
          );
        }
        pacer.release(ticket, headers, ok ? 201 : 429);
        if (ok) {
          accepted.push(t - start);
          served.push(servedAt);
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
      take();
      otherSent += 1;
      await after(gap);
    }
  };
  let failure: unknown;
  const work = Promise.all(Array.from({ length: o.parallelism ?? 10 }, worker)).then(
    () => {
      finished = true;
    },
    (err: unknown) => {
      failure = err;
      finished = true;
    },
  );
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
  if (failure) throw failure;
  const wallMs = t - start;
  const floorMs = ((o.requests - o.burst) / o.rate) * 1000;
  const firstServed = Math.min(...served);
  const httpMs = Math.max(...served) - firstServed;
  const httpFloorMs = o.model === 'window' ? windowFloor(o, firstServed) : floorMs;
  return {
    wallMs,
    floorMs,
    ratio: wallMs / floorMs,
    httpMs,
    httpFloorMs,
    httpRatio: httpMs / httpFloorMs,
    sent,
    status429,
    otherSent,
    accepted,
    pacer,
  };
}
