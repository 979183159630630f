/**
 * One limiter shared by every request of a client. It learns the tenant's
 * window from the X-RateLimit-* headers of each response and holds requests
 * back before the tenant would answer 429: when the window's remaining budget,
 * less the requests already sent against it, reaches zero, new requests wait
 * until X-RateLimit-Reset. Until the first response shows whether the tenant
 * sends those headers, only one request is in flight. A user ceiling
 * (--max-rps) is a token bucket of size one on the injected clock.
 *
 * Each request holds a ticket numbered in sending order. An answer to an
 * older request than the one the window was last learned from is stale and
 * teaches nothing (token buckets refill, so a higher Remaining from a newer
 * answer is real, from an older one it is not). Requests sent after the
 * learned one and still in flight are counted against the budget.
 *
 * Token buckets (the real service's model: Reset is when the bucket is full
 * again) refill continuously. Once an answer shows a refill before the reset
 * (Remaining higher than the requests counted since allow), the pacer stops
 * waiting for the whole reset when the budget runs out and instead sends one
 * request per estimated token interval. The interval estimate is
 * (Reset - now) / (Limit - Remaining - 1): Reset is rounded up to the second
 * and Remaining down, so this never undershoots the true interval, and the
 * smallest estimate seen converges on it (plus a 2% margin). A 429 drops back to waiting for the
 * reset until refills are seen again.
 *
 * Callers are served first come, first served: one caller decides at a time.
 */
import { JITTER_MS, readRateHeaders, resetAtMs, retryAfterMs, type Headers } from './retry.js';

const REFILL_MARGIN = 1.02;

export interface PacerOptions {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Requests per second ceiling; undefined = none. */
  maxRps?: number;
  /** Longest single wait for a window reset. */
  maxDelayMs: number;
  /** Told about each timed wait before it starts. */
  onWait: (ms: number, reason: string) => void;
  /** Told about time spent waiting for in-flight responses (no timer involved). */
  onBlocked?: (ms: number) => void;
}

interface Window {
  limit?: number;
  /** X-RateLimit-Remaining as last reported. */
  remaining: number;
  /** Local clock time of X-RateLimit-Reset; undefined when unknown. */
  resetAt?: number;
  /** Ticket of the request whose answer reported it (after a reset: the last ticket handed out). */
  ticket: number;
  /** Requests sent after that one and in flight when it was reported: not yet counted by the tenant. */
  uncounted: number;
  /** Requests started since it was reported. */
  issued: number;
  /** Local time it was reported (for continuous refill). */
  learnedAt?: number;
}

type Decision =
  | { type: 'go' }
  | { type: 'event' }
  | { type: 'sleep'; ms: number; reason: string; window?: Window; capped?: boolean; pace?: boolean };

export class Pacer {
  /** Tickets of the requests in flight. */
  private readonly inFlight = new Set<number>();
  private lastTicket = 0;
  /** Whether responses carry rate-limit headers: unknown until the first response. */
  private seen: 'unknown' | 'headers' | 'none' = 'unknown';
  private window: Window | null = null;
  /** Smallest safe estimate of the tenant's ms per token; undefined until one is seen. */
  private refillMs: number | undefined;
  /** Whether answers have shown the budget refilling before its reset (a token bucket). */
  private refills = false;
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
    if (!this.inFlight.delete(ticket)) return;
    // Only an answer to a request sent after the one the window came from is news.
    if (headers && (!this.window || ticket > this.window.ticket)) this.learn(ticket, headers, status);
    const waiting = [...this.listeners];
    this.listeners.clear();
    for (const wake of waiting) wake();
  }

  private sentAfter(ticket: number): number {
    let n = 0;
    for (const t of this.inFlight) if (t > ticket) n += 1;
    return n;
  }

  private learn(ticket: number, headers: Headers, status: number): void {
    const now = this.options.now();
    const rate = readRateHeaders(headers);
    if (rate.remaining === undefined && status !== 429) {
      if (this.seen === 'unknown') this.seen = 'none';
      if (this.window && this.window.limit === undefined) this.window = null;
      return;
    }
    this.seen = 'headers';
    const remaining = status === 429 ? 0 : (rate.remaining ?? 0);
    let resetAt = resetAtMs(headers, now);
    if (resetAt === undefined && status === 429) {
      const after = retryAfterMs(headers, now);
      if (after !== undefined) resetAt = now + after;
    }
    const previous = this.window;
    if (status === 429) {
      this.refills = false;
      this.refillMs = undefined;
    } else {
      this.learnRefill(previous, ticket, remaining, rate.limit ?? previous?.limit, resetAt, now);
    }
    const next: Window = { remaining, ticket, uncounted: this.sentAfter(ticket), issued: 0, learnedAt: now };
    const limit = rate.limit ?? previous?.limit;
    if (limit !== undefined) next.limit = limit;
    if (resetAt !== undefined) next.resetAt = resetAt;
    this.window = next;
  }

  private learnRefill(
    previous: Window | null,
    ticket: number,
    remaining: number,
    limit: number | undefined,
    resetAt: number | undefined,
    now: number,
  ): void {
    if (limit !== undefined && resetAt !== undefined && limit - remaining - 1 >= 1 && resetAt > now) {
      // 2% margin for the time the answer spent on the wire (its Reset was computed before `now`).
      const estimate = ((resetAt - now) / (limit - remaining - 1)) * REFILL_MARGIN;
      this.refillMs = this.refillMs === undefined ? estimate : Math.min(this.refillMs, estimate);
    }
    if (
      previous?.resetAt !== undefined &&
      now < previous.resetAt &&
      remaining > previous.remaining - (ticket - previous.ticket)
    ) {
      this.refills = true;
    }
  }

  /** With a refilling bucket: requests the budget allows now, and when the next token is due. */
  private refillBudget(w: Window, now: number): { avail: number; nextAt: number } | null {
    const ms = this.refillMs;
    if (!this.refills || ms === undefined || w.learnedAt === undefined || w.limit === undefined) return null;
    const gained = Math.floor((now - w.learnedAt) / ms);
    const avail = Math.min(w.limit, w.remaining + gained) - w.issued - w.uncounted;
    return { avail, nextAt: w.learnedAt + ms * (gained + 1) };
  }

  /** After a window's reset: the full limit again, or a single probe when the wait was cut short. */
  private rollOver(w: Window, capped = false): void {
    if (this.window !== w) return;
    if (w.limit === undefined && !capped) {
      this.window = null;
      return;
    }
    const remaining = capped ? 1 : (w.limit ?? 1);
    this.window = { remaining, ticket: this.lastTicket, uncounted: this.inFlight.size, issued: 0 };
    if (w.limit !== undefined) this.window.limit = w.limit;
  }

  private refill(now: number): void {
    const rate = this.options.maxRps;
    if (rate === undefined) return;
    this.tokens = Math.min(1, this.tokens + ((now - this.refilledAt) * rate) / 1000);
    this.refilledAt = now;
  }

  private decide(now: number): Decision {
    const current = this.window;
    if (current?.resetAt !== undefined && now >= current.resetAt) this.rollOver(current);
    const w = this.window;
    if (this.seen === 'unknown') {
      if (this.inFlight.size > 0) return { type: 'event' };
    } else if (w && this.refillBudget(w, now)) {
      const budget = this.refillBudget(w, now)!;
      if (budget.avail <= 0) {
        const ms = Math.max(1, Math.ceil(budget.nextAt - now));
        return { type: 'sleep', ms, reason: 'pacing to the tenant rate limit', pace: true };
      }
    } else if (w) {
      const left = w.remaining - w.issued;
      if (left <= 0 && w.resetAt !== undefined) {
        const wait = Math.max(0, w.resetAt - now) + Math.round(this.options.random() * JITTER_MS);
        const ms = Math.min(this.options.maxDelayMs, wait);
        const reason = `rate limit budget used up${w.limit !== undefined ? ` (limit ${w.limit})` : ''}; waiting for X-RateLimit-Reset`;
        return { type: 'sleep', ms, reason, window: w, capped: ms < wait };
      }
      if (this.inFlight.size > 0 && left - w.uncounted <= 0) return { type: 'event' };
    }
    const rate = this.options.maxRps;
    if (rate !== undefined) {
      this.refill(now);
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

  private async waitForSlot(signal?: AbortSignal): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const d = this.decide(this.options.now());
      if (d.type === 'go') break;
      if (d.type === 'event') {
        const started = this.options.now();
        await this.nextRelease(signal);
        this.options.onBlocked?.(Math.max(0, this.options.now() - started));
        continue;
      }
      this.options.onWait(d.ms, d.reason);
      await this.options.sleep(d.ms, signal);
      // The wait was computed for this window or token: count it as served even if
      // the clock did not move, so the loop always makes progress.
      if (d.pace) continue;
      if (d.window) this.rollOver(d.window, d.capped);
      else {
        this.refill(this.options.now());
        this.tokens = Math.max(this.tokens, 1);
      }
    }
    const ticket = ++this.lastTicket;
    this.inFlight.add(ticket);
    if (this.window) this.window.issued += 1;
    if (this.options.maxRps !== undefined) this.tokens -= 1;
    return ticket;
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
