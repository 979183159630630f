/**
 * One limiter per API client, shared by all its requests. It keeps a model of
 * the tenant's budget from the X-RateLimit-* headers and holds requests back
 * before the tenant would answer 429. Until the first answer shows whether the
 * tenant sends those headers, only one request is in flight. A user ceiling
 * (--max-rps) is a token bucket of size one on the injected clock.
 *
 * The model is a level: requests we may still send now. Each answer sets it
 * from Remaining, less the requests sent after that one and still in flight
 * (the tenant may not have counted them yet); each request sent takes one.
 * Answers to requests older than the one the level was last set from are
 * stale for the level (a bucket refills, so an older, lower Remaining is no
 * news) but still teach the refill rate.
 *
 * Until answers show the budget refilling, the tenant is treated as a fixed
 * window: spend Remaining, then wait for X-RateLimit-Reset. When the budget
 * is spent and Reset proves a refill rate (refill.ts), one probe goes out at
 * that rate instead: if it is accepted with nothing spent back, the tenant is
 * a token bucket (the real service's model); if it gets a 429, the tenant is
 * a fixed window and is never probed again. For a token bucket the level
 * grows at the largest rate the answers prove (never above the truth, so the
 * bucket is never overdrawn), and requests go out as the level reaches one.
 * The proofs tighten as the run goes on, so the rate rises towards the
 * tenant's. A bucket of one proves nothing between requests (every answer
 * says 0 left): there each answer raises the rate by a tenth, below any rate
 * that got a 429. A 429 empties the level and forgets the proven rate but the
 * lower of the growth rate and a fraction of the old rate, which the answers
 * then raise again: 0.9 when the rate was a probe above the proven one, half
 * when it was proven (another client drew on the shared bucket). Until a full
 * bucket shows nobody else draws on it, Remaining only ever lowers the level
 * (the other client may take what it shows).
 * Answers whose Reset moves later before the earlier Reset has come prove a
 * token bucket without a probe (a fixed window keeps its reset), so a tenant
 * taken for a window during another client's 429 storm is paced again as a
 * bucket once the storm is over.
 *
 * Callers are served first come, first served: one caller decides at a time.
 */
import { RefillBounds } from './refill.js';
import { JITTER_MS, readRateHeaders, resetAtMs, retryAfterMs, type Headers } from './retry.js';

export interface PacerOptions {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Requests per second ceiling; undefined = none. */
  maxRps?: number;
  /** Share of the tenant's sustained rate to use (--max-rate), a fraction in (0, 1]; undefined = 1. */
  share?: number;
  /** Longest single wait for a window reset. */
  maxDelayMs: number;
  /** Told about each timed wait before it starts. */
  onWait: (ms: number, reason: string) => void;
  /** Told about time spent waiting for in-flight responses (no timer involved). */
  onBlocked?: (ms: number) => void;
}

/** Why a wait happens, for the progress output. */
export const WAIT_REASON = {
  pace: 'pacing to the tenant rate limit',
  reset: 'rate limit budget used up; waiting for X-RateLimit-Reset',
  after429: 'rate limited (429); waiting for the budget to refill',
} as const;

/** Wait before probing a tenant taken for a fixed window again (doubles each time). */
const FIRST_REPROBE_MS = 2000;

/** Factor of an upward probe of the refill rate. */
const PROBE_STEP = 1.1;
/** Probes stay this factor below the lowest rate that got a 429. */
const REFUSED_MARGIN = 1.1;
/** Factor on the rate after a 429 from a bucket someone else draws on. */
const SHARED_BACKOFF = 0.5;
/** Factor on the rate after a 429 to a probe above the proven rate. */
const PROBE_BACKOFF = 0.9;

type Decision =
  { type: 'go' } | { type: 'event' } | { type: 'sleep'; ms: number; reason: string; capped?: boolean };

/** How the tenant's budget comes back. */
type Refill = 'unknown' | 'window' | 'bucket';

export class Pacer {
  /** Sending time of each request in flight, by ticket. */
  private readonly inFlight = new Map<number, number>();
  private lastTicket = 0;
  /** Whether responses carry rate-limit headers: unknown until the first response. */
  private seen: 'unknown' | 'headers' | 'none' = 'unknown';
  private refill: Refill = 'unknown';
  private readonly bounds = new RefillBounds();
  /** Refill rate in use (tokens per ms), bucket only. */
  private rate: number | undefined;
  private limit: number | undefined;
  /** Requests we may send as of `levelAt`; undefined until an answer sets it. */
  private level: number | undefined;
  private levelAt = 0;
  /** Ticket of the answer the level was last set from. */
  private levelTicket = 0;
  /** Local time of X-RateLimit-Reset of that answer. */
  private resetAt: number | undefined;
  /** Ticket of the request sent as a probe for refills; 0 = none. */
  private probe = 0;
  /** Remaining when the budget ran out, to tell a probe's answer from a refill. */
  private tokens = 1;
  private refilledAt: number;
  private turn: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: PacerOptions) {
    this.refilledAt = options.now();
  }

  /** Requests currently holding a slot. */
  get active(): number {
    return this.inFlight.size;
  }

  /** The refill rate in use, requests per second; undefined when not pacing a token bucket. */
  get ratePerSecond(): number | undefined {
    return this.refill === 'bucket' && this.rate !== undefined ? this.rate * 1000 : undefined;
  }

  /**
   * Resolves with a ticket when this request may be sent; pass the ticket to
   * release() once its answer (or failure) is in.
   */
  acquire(signal?: AbortSignal): Promise<number> {
    const mine = this.turn.then(() => this.waitForSlot(signal));
    this.turn = mine.then(
      () => undefined,
      () => undefined,
    );
    return mine;
  }

  /** Ends a request's slot; `headers` are its response headers (null when no response arrived). */
  release(ticket: number, headers: Headers | null, status = 0): void {
    const sentAt = this.inFlight.get(ticket);
    if (sentAt === undefined) return;
    this.inFlight.delete(ticket);
    if (headers) this.learn(ticket, sentAt, headers, status);
    else if (ticket === this.probe) this.probe = 0;
    const waiting = [...this.listeners];
    this.listeners.clear();
    for (const wake of waiting) wake();
  }

  private sentAfter(ticket: number): number {
    let n = 0;
    for (const t of this.inFlight.keys()) if (t > ticket) n += 1;
    return n;
  }

  private learn(ticket: number, sentAt: number, headers: Headers, status: number): void {
    const now = this.options.now();
    const rate = readRateHeaders(headers);
    if (rate.remaining === undefined && status !== 429) {
      if (this.seen === 'unknown') this.seen = 'none';
      if (this.limit === undefined) this.level = undefined;
      return;
    }
    this.seen = 'headers';
    if (rate.limit !== undefined) this.limit = rate.limit;
    let resetAt = resetAtMs(headers, now);
    if (status === 429) {
      const after = retryAfterMs(headers, now);
      if (resetAt === undefined && after !== undefined) resetAt = now + after;
      this.on429(ticket, sentAt, now, resetAt, after);
      return;
    }
    const remaining = rate.remaining!;
    if (this.limit !== undefined) {
      this.bounds.observe({
        sentAt,
        recvAt: now,
        limit: this.limit,
        remaining,
        ...(resetAt !== undefined ? { resetAt } : {}),
      });
    }
    const wasProbe = ticket === this.probe;
    if (wasProbe) this.probe = 0;
    if (ticket <= this.levelTicket) {
      this.updateRate();
      return; // stale for the level
    }
    // A refill: the answers prove the bucket gained tokens.
    if (this.refill !== 'bucket' && this.bounds.refillSeen) this.refill = 'bucket';
    // A budget of one request shows no refill between requests, and a window of
    // one differs from a bucket of one only in how often it refills: pace it as a
    // bucket (the real service's model) from the first answer.
    if (this.refill === 'unknown' && this.limit === 1) this.refill = 'bucket';
    // The probe went out when the last answer left nothing and nothing else was in
    // flight: accepted before the reset, the budget refilled (a fixed window says 429).
    if (wasProbe && this.refill !== 'bucket') {
      this.refill = this.resetAt === undefined || now < this.resetAt ? 'bucket' : 'window';
    }
    if (this.shared && remaining === this.limit! - 1) {
      // A full bucket: nobody else draws on it now. Learn it afresh.
      this.shared = false;
      this.bounds.forget();
    }
    this.updateRate();
    if (this.refill === 'bucket' && this.limit === 1 && this.rate !== undefined) {
      // A bucket of one was full before every request: its answers prove no more
      // than the rate we paced at. Probe upward, below any rate that got a 429.
      const probe = Math.min(
        this.rate * PROBE_STEP,
        this.bounds.upper ?? Infinity,
        this.refused / REFUSED_MARGIN,
      );
      this.rate = Math.max(this.rate, probe);
    }
    // Requests still in flight may be counted after this answer, whatever their order.
    const floor = remaining - this.inFlight.size;
    const predicted = this.levelNow(now);
    if (this.refill === 'bucket' && predicted !== undefined && this.rate !== undefined) {
      // Remaining is rounded down: the level is at least what it says, and below one more.
      const ceiling = remaining + 1 + this.rate * (now - sentAt);
      // With another client on the bucket, what Remaining shows is theirs to take too:
      // count on no more than our own share predicts.
      const shown = this.shared ? Math.min(predicted, floor) : Math.max(predicted, floor);
      this.level = Math.min(shown, ceiling);
    } else {
      this.level = floor;
    }
    this.levelAt = now;
    this.levelTicket = ticket;
    this.lastRemaining = remaining;
    this.resetAt = resetAt;
    this.after429 = false;
  }

  private lastRemaining = 0;
  /** Whether the last answer the level came from was a 429. */
  private after429 = false;
  /** A tenant taken for a fixed window is probed again from this time on. */
  private nextProbeAt = 0;
  private probeBackoffMs = FIRST_REPROBE_MS;
  /** Whether a 429 showed another client drawing on the bucket. */
  private shared = false;
  /** Lowest rate in use when a 429 came back: probes stay below it. */
  private refused = Infinity;
  /** Arrival of the last 429. */
  private last429At = -Infinity;
  /** No request before this local time (a 429's Retry-After). */
  private holdUntil = 0;

  private on429(
    ticket: number,
    sentAt: number,
    now: number,
    resetAt: number | undefined,
    retryAfter?: number,
  ): void {
    this.after429 = true;
    // Requests sent before the last 429 arrived were sent on the same mistaken level: one lesson.
    const lesson = sentAt >= this.last429At;
    this.last429At = now;
    if (retryAfter !== undefined) {
      this.holdUntil = Math.max(this.holdUntil, now + Math.min(retryAfter, this.options.maxDelayMs));
    }
    if (ticket === this.probe) this.probe = 0;
    // Over budget before any refill was seen: a fixed window, or a bucket someone
    // else drained. Wait for its resets, and probe again only after a while
    // (2 s, then twice as long each time), so a fixed window costs few 429s.
    if (this.refill !== 'bucket') {
      this.refill = 'window';
      this.nextProbeAt = now + this.probeBackoffMs;
      this.probeBackoffMs *= 2;
    }
    const growth = this.bounds.growth;
    const proven = this.bounds.lower;
    const before = this.rate;
    if (this.refill === 'bucket' && before !== undefined && lesson) {
      // Above the proven rate, the 429 answers our own probe: step back below it. At
      // or under it, the answers prove the budget was there: someone else took it.
      const probing = proven === undefined || before > proven * (1 + 1e-9);
      this.refused = Math.min(this.refused, before);
      this.shared = true;
      this.bounds.forget();
      this.rate = Math.min(before * (probing ? PROBE_BACKOFF : SHARED_BACKOFF), growth ?? before);
    }
    this.level = -this.inFlight.size;
    this.levelAt = now;
    this.levelTicket = Math.max(this.levelTicket, ticket);
    this.lastRemaining = 0;
    this.resetAt = resetAt;
  }

  private updateRate(): void {
    if (this.refill !== 'bucket') return;
    if (this.shared) {
      // After a 429 the bucket is shared: Reset tells the tenant's rate, not what is
      // left for us; the growth over a long baseline does.
      const left = this.bounds.sustained;
      if (left !== undefined && left > 0) this.rate = left;
    } else {
      const proven = this.bounds.lower;
      if (proven !== undefined) this.rate = Math.max(this.rate ?? 0, proven);
    }
    const ceiling = this.bounds.upper;
    if (this.rate !== undefined && ceiling !== undefined) this.rate = Math.min(this.rate, ceiling);
  }

  /** The level now, refilled since it was set (bucket) or restored at the reset (window). */
  private levelNow(now: number): number | undefined {
    if (this.level === undefined) return undefined;
    const limit = this.limit ?? Infinity;
    const cap = limit - this.inFlight.size;
    if (this.refill === 'bucket' && this.rate !== undefined) {
      return Math.min(Math.max(cap, this.level), this.level + this.rate * (now - this.levelAt));
    }
    if (this.resetAt !== undefined && now >= this.resetAt) return this.limit === undefined ? undefined : cap;
    return this.level;
  }

  private maxRpsRefill(now: number): void {
    const rate = this.options.maxRps;
    if (rate === undefined) return;
    this.tokens = Math.min(1, this.tokens + ((now - this.refilledAt) * rate) / 1000);
    this.refilledAt = now;
  }

  private decide(now: number): Decision {
    if (this.seen === 'unknown') {
      if (this.inFlight.size > 0) return { type: 'event' };
    } else if (this.seen === 'headers') {
      const d = this.budgetDecision(now);
      if (d) return d;
    }
    const rate = this.options.maxRps;
    if (rate !== undefined) {
      this.maxRpsRefill(now);
      if (this.tokens < 1) {
        return {
          type: 'sleep',
          ms: Math.ceil(((1 - this.tokens) * 1000) / rate),
          reason: `--max-rps ${rate}`,
        };
      }
    }
    return { type: 'go' };
  }

  /** A wait the tenant's budget asks for, or null to go (as far as the budget is concerned). */
  private budgetDecision(now: number): Decision | null {
    if (now < this.holdUntil) {
      return { type: 'sleep', ms: Math.ceil(this.holdUntil - now), reason: WAIT_REASON.after429 };
    }
    const level = this.levelNow(now);
    if (level === undefined || level >= 1) return null;
    if (this.refill === 'bucket' && this.rate !== undefined) {
      const ms = Math.max(1, Math.ceil((1 - level) / this.rate));
      return { type: 'sleep', ms, reason: this.after429 ? WAIT_REASON.after429 : WAIT_REASON.pace };
    }
    // A fixed window, or not known yet.
    if (this.probe !== 0) return { type: 'event' };
    const proven = this.bounds.lower;
    const mayProbe = this.refill === 'unknown' || (this.refill === 'window' && now >= this.nextProbeAt);
    if (mayProbe && proven !== undefined) {
      if (this.inFlight.size > 0) return { type: 'event' };
      // Probe at the proven rate: one token's time after the last answer.
      const due = this.levelAt + (1 - level) / proven;
      if (now >= due) return null;
      const ms = Math.max(1, Math.ceil(due - now));
      const capped = ms > this.options.maxDelayMs;
      return { type: 'sleep', ms: capped ? this.options.maxDelayMs : ms, reason: WAIT_REASON.pace, capped };
    }
    if (this.resetAt !== undefined) {
      const wait = Math.max(
        1,
        Math.max(0, this.resetAt - now) + Math.round(this.options.random() * JITTER_MS),
      );
      const capped = wait > this.options.maxDelayMs;
      return {
        type: 'sleep',
        ms: capped ? this.options.maxDelayMs : wait,
        reason: this.after429 ? WAIT_REASON.after429 : WAIT_REASON.reset,
        capped,
      };
    }
    if (this.inFlight.size > 0) return { type: 'event' };
    return null;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.options.now();
      const d = this.decide(now);
      if (d.type === 'go') break;
      if (d.type === 'event') {
        await this.nextRelease(signal);
        this.options.onBlocked?.(Math.max(0, this.options.now() - now));
        continue;
      }
      this.options.onWait(d.ms, d.reason);
      await this.options.sleep(d.ms, signal);
      if (d.capped || this.options.now() < now + d.ms) {
        // A wait cut short by maxDelayMs, or a clock that did not move as far as
        // asked: count the wait as served (one request may go) so the loop
        // always makes progress.
        this.serveWait(now, d);
      }
    }
    const now = this.options.now();
    const level = this.levelNow(now);
    const ticket = ++this.lastTicket;
    this.inFlight.set(ticket, now);
    if (level !== undefined && this.seen === 'headers') {
      if (level < 1 && this.refill !== 'bucket') this.probe = ticket;
      this.level = level - 1;
      this.levelAt = now;
      if (this.resetAt !== undefined && now >= this.resetAt) this.resetAt = undefined;
    }
    if (this.options.maxRps !== undefined) this.tokens -= 1;
    return ticket;
  }

  private serveWait(started: number, d: { ms: number; reason: string; capped?: boolean }): void {
    if (d.reason.startsWith('--max-rps')) {
      this.maxRpsRefill(this.options.now());
      this.tokens = Math.max(this.tokens, 1);
      return;
    }
    if (this.level === undefined) return;
    const level = d.capped ? this.level : this.levelNow(started + d.ms);
    if (level === undefined) return;
    this.level = Math.max(level, 1);
    this.levelAt = this.options.now();
    if (d.capped) this.resetAt = undefined;
  }

  private nextRelease(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.listeners.delete(wake);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.listeners.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
