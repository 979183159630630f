/**
 * One pacer per API client (or per bucket: pacer-routes.ts), shared by all its
 * requests; callers are served first come, first served, one deciding at a
 * time. The invariant (docs/pacing-and-failures.md has the why): a request
 * goes only if the newest answer's Remaining, less every request not yet
 * answered, leaves one for it (the level), or once the limiter's clock has
 * surely passed that answer's Reset (tenant-clock.ts; then one opener goes
 * alone and its answer sets the level again). A bucket proven continuous
 * (refill-model.ts) also counts what its proven rate (refill.ts) refilled,
 * and narrows that rate with a token to spare (holdForRate). A
 * 429 stops everyone until the Reset or Retry-After it names. Date is never
 * taken for the limiter's clock. The user's ceilings sit on top (ceilings.ts);
 * no wait passes the rate-limit timeout's deadline. Before the first answer one
 * request goes alone, or the first round remembered facts prove (`opening`).
 */
import { UserCeilings, type Decision, type RpsState, type WaitCause } from './ceilings.js';
import { LevelSinceFull, RefillBounds } from './refill.js';
import { RefillModel } from './refill-model.js';
import { backoffMs, readRateHeaders, retryAfterMs, type Headers } from './retry.js';
import { TenantClock } from './tenant-clock.js';
import type { RateFacts } from './types.js';

export interface PacerOptions {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Requests per second ceiling; undefined = none. */
  maxRps?: number;
  /** Share of the tenant's sustained rate to use (--max-rate), a fraction in (0, 1]; undefined = 1. */
  share?: number;
  /** Longest single wait for a budget the answers cannot date. */
  maxDelayMs: number;
  /** Told about each timed wait before it starts. */
  onWait: (ms: number, cause: WaitCause) => void;
  /** Told about time spent waiting for in-flight responses (no timer involved). */
  onBlocked?: (ms: number) => void;
  /**
   * The local time by which the run ends unless an answer other than 429
   * comes (the rate-limit timeout, counted from the first 429 of a streak);
   * undefined outside a streak. No wait passes it: at it, `onDeadline` is
   * told (it ends the run) and the waiting caller gets an error.
   */
  deadline?: () => number | undefined;
  onDeadline?: () => void;
  /** The requests-per-second ceiling's state, when shared with other pacers (pacer-routes.ts). */
  rpsState?: RpsState;
  /**
   * Requests that may go before the first answer (the first round): what the
   * facts remembered from an earlier run prove left (src/run/rate-memory.ts).
   * Default 1: nothing known, one request alone until an answer shows the headers.
   */
  opening?: number;
}

/** Why a wait happens, for the progress output. */
export const WAIT_REASON = {
  pace: 'pacing to the tenant rate limit',
  reset: 'rate limit budget used up; waiting for X-RateLimit-Reset',
  after429: 'rate limited (429); waiting for the budget to refill',
} as const;

const budget = (reason: string): WaitCause => ({ kind: 'rate-limit', reason });

/** Factor of an upward probe of a bucket of one's refill rate, per answer. */
const PROBE_STEP = 1.1;
/** Factor of that probe until the bucket's first 429: the rate is still far below its own. */
const SLOW_START_STEP = 2;
/** Probes stay this factor below the lowest rate that got a 429. */
const REFUSED_MARGIN = 1.1;
/** Factor on the rate after a 429 from a bucket someone else draws on. */
const SHARED_BACKOFF = 0.5;
/** Factor on the rate after a 429 to a probe above the proven rate. */
const PROBE_BACKOFF = 0.9;
/** A window's Reset may be up to a minute (and a skew) away: waits for it are capped here at least. */
const WINDOW_WAIT_CAP_MS = 65_000;
/** The tenant's clock is narrowed down to this (ms) by holding a window's last token. */
const CLOCK_PRECISION_MS = 8;
/** First wait after a 429 that names no time to come back. */
const BLIND_FIRST_MS = 500;
/** A continuous bucket's rate is probed until proven to within this fraction. */
const RATE_PRECISION = 0.01;

interface Answer {
  ticket: number;
  sentAt: number;
  recvAt: number;
  status: number;
  limit: number | undefined;
  remaining: number | undefined;
  /** X-RateLimit-Reset on the tenant's clock, ms. */
  resetMs: number | undefined;
  dateMs: number | undefined;
  /** Retry-After, ms, when sent. */
  retryAfterMs: number | undefined;
  /** Answers to other requests that arrived while it was in flight. */
  overlapped: number;
}

export class Pacer {
  /** Sending time of each request in flight, by ticket. */
  private readonly inFlight = new Map<number, number>();
  private lastTicket = 0;
  /** Whether responses carry rate-limit headers: unknown until the first response. */
  private seen: 'unknown' | 'headers' | 'none' = 'unknown';
  private readonly clock = new TenantClock();
  private readonly model = new RefillModel(this.clock);
  private readonly bounds = new RefillBounds();
  private readonly sinceFull = new LevelSinceFull();
  /** Answers (or failures) in so far, and that count when each request in flight was sent. */
  private answered = 0;
  private readonly answeredAtSend = new Map<number, number>();
  private readonly ceilings: UserCeilings;
  /** Refill rate in use (tokens per ms), continuous buckets only. */
  private rate: number | undefined;
  private limit: number | undefined;
  /** Requests we may send as of `levelAt`; undefined until an answer sets it. */
  private level: number | undefined;
  private levelAt = 0;
  /** Ticket of the answer the level was last set from. */
  private levelTicket = 0;
  /** X-RateLimit-Reset (tenant clock, ms) of that answer; cleared once passed and an opener went. */
  private resetMs: number | undefined;
  /** The ticket of the latest window's opener, and the Reset it went at (restored if it gets no answer). */
  private opener = 0;
  private openedReset: number | undefined;
  /** The latest Reset (tenant clock, ms) any answer named. */
  private latestReset = -Infinity;
  /** The latest Reset (tenant clock, ms) that passed with an opener sent: answers naming it are old news. */
  private rolled = -Infinity;
  /** Ticket of the request sent as a probe for refills; 0 = none. */
  private probe = 0;
  /** The answer the level came from when the probe went. */
  private probeBefore: Answer | undefined;
  /** Local time at which the held-back last token goes as a probe. */
  private probeAt: number | undefined;
  /** The answer the level was last set from. */
  private levelAnswer: Answer | undefined;
  private turn: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  /** Whether the last answer the level came from was a 429. */
  private after429 = false;
  /** Whether a 429 showed another client drawing on the budget. */
  private shared = false;
  /** Lowest rate in use when a 429 came back: probes stay below it. */
  private refused = Infinity;
  /** Arrival of the latest answer that took a token (not a 429). */
  private tookAt = -Infinity;
  /** A bucket of one: the rate its latest accepted request went at (after the answer before it). */
  private served: number | undefined;
  /** Arrival of the last 429. */
  private last429At = -Infinity;
  /** No request before this local time (a 429's Retry-After). */
  private holdUntil = 0;
  /** Sending time of the latest request whose answer a wait was cut short for. */
  private heard = -Infinity;
  /** Round trip of the latest answer, ms. */
  private roundTrip = 0;
  /** Lessons from 429s without Reset or Retry-After in a row; 0 once a request succeeds. */
  private blind = 0;

  /** Requests that may go before the first answer (see PacerOptions.opening). */
  private opening: number;
  /** Callers waiting for a slot, the one deciding among them. */
  private queued = 0;
  /** The rate (tokens per ms) the request about to go tests (holdForRate), and its ticket once sent. */
  private rateProbeAt: number | undefined;
  private rateProbe: { ticket: number; rate: number } | undefined;
  /** A rate a probe found the bucket below (tokens per ms). */
  private rateBelow: number | undefined;

  constructor(private readonly options: PacerOptions) {
    this.ceilings = new UserCeilings(options);
    this.opening = Math.max(1, Math.floor(options.opening ?? 1));
  }

  /** From now on, only one request goes before the first answer (a route the first round's facts do not cover). */
  dropOpening(): void {
    this.opening = 1;
  }

  /** What the answers taught, for the next run; undefined until an answer set the level. */
  facts(): RateFacts | undefined {
    if (this.seen !== 'headers' || this.limit === undefined || this.level === undefined) return undefined;
    const { kind, step, windowMs } = this.model;
    const proven = this.continuous ? this.bounds.lower : undefined;
    return {
      limit: this.limit,
      remaining: Math.max(0, Math.floor(this.level)),
      at: this.levelAt,
      ...(this.resetMs !== undefined ? { resetAt: this.clock.latestLocal(this.resetMs) } : {}),
      refill: this.refill,
      ...(proven !== undefined ? { perSecond: proven * 1000 } : {}),
      ...(kind === 'window' && step !== undefined && windowMs !== undefined ? { step, windowMs } : {}),
    };
  }

  /** Requests currently holding a slot. */
  get active(): number {
    return this.inFlight.size;
  }

  /** The refill rate in use, requests per second; undefined when not pacing a continuous bucket. */
  get ratePerSecond(): number | undefined {
    return this.continuous && this.rate !== undefined ? this.rate * 1000 : undefined;
  }

  /** X-RateLimit-Limit of the answers, once one said. */
  get knownLimit(): number | undefined {
    return this.limit;
  }

  /** How the tenant's budget comes back, as learned so far. */
  get refill(): 'unknown' | 'window' | 'continuous' {
    return this.continuous ? 'continuous' : this.model.kind;
  }

  /** The sustained rate learned, requests per second; undefined until learned. */
  get sustainedPerSecond(): number | undefined {
    const perMs = this.sustained();
    return perMs === undefined ? undefined : perMs * 1000;
  }

  /**
   * Resolves with a ticket when this request may be sent; pass the ticket to
   * release() once its answer (or failure) is in.
   */
  acquire(signal?: AbortSignal): Promise<number> {
    this.queued += 1;
    const mine = this.turn.then(() => this.waitForSlot(signal)).finally(() => (this.queued -= 1));
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
    const overlapped = this.ended(ticket);
    if (headers) {
      const answer = this.read(ticket, sentAt, headers, status, overlapped);
      this.learn(answer);
      this.brim(answer);
    } else this.unanswered(ticket);
    this.wake();
  }

  /**
   * Ends the slot of a request that turned out to draw on another bucket
   * (pacer-routes.ts): the token it took comes back, and if it was the
   * window's opener, the next request opens the window instead.
   */
  cancel(ticket: number): void {
    if (!this.inFlight.delete(ticket)) return;
    this.ended(ticket);
    if (this.level !== undefined && ticket > this.levelTicket) this.level += 1;
    this.unanswered(ticket);
    this.wake();
  }

  /** A request's slot ended: how many other answers came while it was in flight. */
  private ended(ticket: number): number {
    const overlapped = this.answered - (this.answeredAtSend.get(ticket) ?? this.answered);
    this.answeredAtSend.delete(ticket);
    this.answered += 1;
    return overlapped;
  }

  /** No answer came for `ticket`: an opener's window stays unopened, a probe unanswered. */
  private unanswered(ticket: number): void {
    if (ticket === this.probe) this.probe = 0;
    if (ticket === this.opener && this.levelTicket < ticket && this.resetMs === undefined) {
      this.resetMs = this.openedReset;
    }
  }

  private wake(): void {
    const waiting = [...this.listeners];
    this.listeners.clear();
    for (const wake of waiting) wake();
  }

  /** A continuous bucket, or a bucket of one (whose proofs hold in either model). */
  private get continuous(): boolean {
    return this.model.kind === 'continuous' || this.limit === 1;
  }

  private read(ticket: number, sentAt: number, headers: Headers, status: number, overlapped: number): Answer {
    const rate = readRateHeaders(headers);
    const date = headers.date;
    const dateMs = typeof date === 'string' ? Date.parse(date) : NaN;
    return {
      ticket,
      sentAt,
      recvAt: this.options.now(),
      status,
      limit: rate.limit,
      remaining: rate.remaining,
      resetMs: rate.reset === undefined ? undefined : rate.reset * 1000,
      dateMs: Number.isNaN(dateMs) ? undefined : dateMs,
      retryAfterMs: retryAfterMs(headers, this.options.now()),
      overlapped,
    };
  }

  private learn(a: Answer): void {
    if (a.status !== 429) this.blind = 0;
    if (a.remaining === undefined && a.status !== 429) {
      if (this.seen === 'unknown') this.seen = 'none';
      if (this.limit === undefined) this.level = undefined;
      return;
    }
    this.seen = 'headers';
    this.roundTrip = a.recvAt - a.sentAt;
    if (a.limit !== undefined) this.limit = a.limit;
    this.clock.observe(a);
    this.notePassed(a);
    if (a.status === 429) return this.on429(a);
    const remaining = a.remaining!;
    if (this.limit === undefined) this.limit = remaining + 1;
    if (remaining === this.limit - 1) {
      // Full before it: exactly Limit − 1 left, less whatever else may be served after it.
      this.sinceFull.full(a.recvAt, remaining - this.inFlight.size - a.overlapped);
    }
    const tookBefore = this.tookAt;
    this.tookAt = Math.max(this.tookAt, a.recvAt);
    const wasProbe = a.ticket === this.probe;
    if (wasProbe) this.probe = 0;
    if (a.ticket === this.rateProbe?.ticket) {
      // Two tokens at the tested rate, and less than one left after taking one: the rate is below it.
      if (remaining === 0 && !this.shared)
        this.rateBelow = Math.min(this.rateBelow ?? Infinity, this.rateProbe.rate);
      this.rateProbe = undefined;
    }
    this.model.observe({ ...a, limit: this.limit, remaining });
    const before = this.probeBefore;
    if (wasProbe && before?.remaining !== undefined) {
      this.model.probeAnswered(
        { ...a, limit: this.limit, remaining },
        { ...before, limit: this.limit, remaining: before.remaining },
      );
    }
    this.bounds.observe({
      sentAt: a.sentAt,
      recvAt: a.recvAt,
      limit: this.limit,
      remaining,
      ...(a.resetMs !== undefined
        ? {
            resetAt: this.clock.expectedLocal(a.resetMs),
            resetEarliest: this.clock.expectedEarliest(a.resetMs),
          }
        : {}),
    });
    this.ceilings.learn(this.limit, this.sustained());
    const oldWindow = !this.continuous && a.resetMs !== undefined && a.resetMs <= this.rolled;
    if (this.servedEarlier(a, remaining)) {
      // Counted in the level's Remaining already, and again as in flight: give it back.
      if (this.level !== undefined) this.level += 1;
      this.updateRate();
      return;
    }
    if (a.ticket <= this.levelTicket || oldWindow) {
      if (!oldWindow) this.lowerWithinWindow(a, remaining);
      this.updateRate();
      return; // stale for the level
    }
    if (this.continuous) this.setContinuousLevel(a, remaining, tookBefore);
    else this.level = remaining - this.inFlight.size;
    this.levelAt = a.recvAt;
    this.levelTicket = a.ticket;
    this.levelAnswer = a;
    this.resetMs = a.resetMs;
    this.after429 = false;
  }

  /**
   * In a window, Remaining only falls until the Reset: an answer naming the
   * level's Reset with more left than the level's answer was served before
   * it, whatever the order of sending or arrival.
   */
  private servedEarlier(a: Answer, remaining: number): boolean {
    const l = this.levelAnswer;
    if (this.continuous || l === undefined || l.status === 429 || l.remaining === undefined) return false;
    return (
      a.resetMs !== undefined &&
      a.resetMs === this.resetMs &&
      a.resetMs === l.resetMs &&
      remaining > l.remaining
    );
  }

  /**
   * In a window, a Reset later than one seen before shows the limiter's clock
   * past that one when the answer was made: what places the boundaries.
   */
  private notePassed(a: Answer): void {
    if (a.resetMs === undefined) return;
    if (this.model.kind === 'window' && a.resetMs > this.latestReset)
      this.clock.passed(this.latestReset, a.recvAt);
    this.latestReset = Math.max(this.latestReset, a.resetMs);
  }

  /**
   * An answer to an older request (the tenant may have served it after the
   * newer one the level came from): in a window nothing comes back before the
   * Reset, so a lower Remaining in the level's window is news. Any request
   * still in flight may not be counted in it.
   */
  private lowerWithinWindow(a: Answer, remaining: number): void {
    if (this.continuous || this.level === undefined || a.resetMs === undefined || a.resetMs !== this.resetMs)
      return;
    const level = remaining - this.inFlight.size;
    if (level >= this.level) return;
    this.level = level;
    this.levelAnswer = a;
  }

  /**
   * A continuous bucket may have stayed full until this answer's request was
   * served, as late as its arrival, losing what it refilled meanwhile: the
   * level counted from the sending must not keep that. At the arrival the
   * bucket then holds Limit − 1 less the requests still in flight (they may
   * be served after it), and no lower bound may claim more. (One answered
   * meanwhile but served after it had this one in flight at its own arrival.)
   */
  private brim(a: Answer): void {
    if (!this.continuous || a.status === 429 || a.remaining === undefined) return;
    const level = this.levelNow(a.recvAt);
    const most = (this.limit ?? Infinity) - 1 - this.inFlight.size;
    if (level === undefined || level <= most) return;
    this.level = most;
    this.levelAt = a.recvAt;
  }

  private setContinuousLevel(a: Answer, remaining: number, tookBefore: number): void {
    if (this.shared && remaining === this.limit! - 1) {
      // A full bucket: nobody else draws on it now. Learn it afresh.
      this.shared = false;
      this.bounds.forget();
    }
    this.updateRate();
    // Requests still in flight may be counted after this answer, whatever their order.
    const floor = remaining - this.inFlight.size;
    if (this.limit === 1 && this.rate !== undefined) {
      // A bucket of one took its token at some instant up to this arrival: its
      // next token is counted from here (a request paced from its sending
      // could be served before the token is back when this one was served late).
      this.probeBucketOfOne(a, tookBefore);
      this.level = floor;
      return;
    }
    const predicted = this.levelNow(a.recvAt);
    if (predicted !== undefined && this.rate !== undefined) {
      // Remaining is rounded down: the level is at least what it says, and below one more.
      const ceiling = remaining + 1 + this.rate * (a.recvAt - a.sentAt);
      // With another client on the bucket, what Remaining shows is theirs to take too:
      // count on no more than our own share predicts.
      const replayed = this.shared ? undefined : this.sinceFull.levelAt(a.recvAt, this.rate, this.limit!);
      const shown = this.shared ? Math.min(predicted, floor) : Math.max(predicted, floor, replayed ?? floor);
      this.level = Math.min(shown, ceiling);
    } else {
      this.level = floor;
    }
  }

  private on429(a: Answer): void {
    this.after429 = true;
    this.sinceFull.forget();
    this.rateBelow = undefined;
    // Requests sent before the last 429 arrived were sent on the same mistaken level: one lesson.
    const lesson = a.sentAt >= this.last429At;
    const planned = this.clock.expectedLocal(a.resetMs ?? Infinity);
    if (!this.continuous && a.resetMs !== undefined && a.sentAt >= planned) this.clock.missed();
    this.last429At = a.recvAt;
    const after = a.retryAfterMs ?? (a.resetMs === undefined ? this.blindBackoff(lesson) : undefined);
    if (after !== undefined) {
      this.holdUntil = Math.max(this.holdUntil, a.recvAt + Math.min(after, this.options.maxDelayMs));
    }
    if (a.ticket === this.probe) {
      this.probe = 0;
      this.model.probeRefused();
    }
    if (this.continuous && this.rate !== undefined && lesson) this.backOff(a);
    // Someone else draws on the budget (or the plan was early): hold nothing back.
    if (!this.continuous) this.shared = true;
    this.level = -this.inFlight.size;
    this.levelAt = a.recvAt;
    this.levelTicket = Math.max(this.levelTicket, a.ticket);
    this.resetMs = a.resetMs;
  }

  /**
   * A bucket of one was full before every request: its answers prove no more
   * than the rate we paced at. Probe upward, a tenth faster with each answer,
   * below any rate that got a 429.
   */
  private probeBucketOfOne(a: Answer, tookBefore: number): void {
    // The rate this request tested: it went this long after the last token was surely
    // taken (the first answer: the rate its Reset proves).
    const gap = a.sentAt - tookBefore;
    const tested = Number.isFinite(gap) ? (gap > 0 ? 1 / gap : undefined) : this.bounds.lower;
    if (tested === undefined) return;
    this.served = tested;
    const step = this.refused === Infinity ? SLOW_START_STEP : PROBE_STEP;
    const probe = Math.min(tested * step, this.bounds.upper ?? Infinity, this.refused / REFUSED_MARGIN);
    this.rate = Math.max(this.rate!, probe);
  }

  /**
   * A 429 that names no time to come back: everyone waits, longer after each
   * lesson (retry.ts's backoff: a ceiling from 0.5 s doubling up to
   * maxDelayMs, half of it fixed and half drawn at random).
   */
  private blindBackoff(lesson: boolean): number {
    if (lesson || this.blind === 0) this.blind += 1;
    return backoffMs(this.blind, this.options.random, {
      baseDelayMs: BLIND_FIRST_MS,
      maxDelayMs: this.options.maxDelayMs,
    });
  }

  /** A continuous bucket answered 429: slow down below the rate that was refused. */
  private backOff(a: Answer): void {
    const growth = this.bounds.growth;
    const proven = this.bounds.lower;
    const before = this.rate!;
    // Above the proven rate, the 429 answers our own probe: step back below it. At
    // or under it, the answers prove the budget was there: someone else took it.
    const probing = proven === undefined || before > proven * (1 + 1e-9);
    // A bucket of one refused a request sent this long after the last token was surely taken.
    const gap = this.limit === 1 ? a.sentAt - this.tookAt : 0;
    this.refused = Math.min(this.refused, before, gap > 0 ? 1 / gap : Infinity);
    this.shared = true;
    this.bounds.forget();
    // A bucket of one proves no more than the rates it served (no one else shows in it):
    // back to the one its last accepted request went at, not to a Reset's weak bound.
    const kept = this.limit === 1 ? Math.max(proven ?? 0, this.served ?? 0) || growth : growth;
    this.rate = Math.min(before * (probing ? PROBE_BACKOFF : SHARED_BACKOFF), kept ?? before);
  }

  private updateRate(): void {
    if (!this.continuous) return;
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

  /** Sustained rate learned (tokens per ms): a continuous bucket's rate, or a window's step over its length. */
  private sustained(): number | undefined {
    if (this.continuous) return this.rate ?? this.bounds.lower;
    const { step, windowMs } = this.model;
    return step !== undefined && windowMs !== undefined ? step / windowMs : undefined;
  }

  /** Local time at which the tenant's clock reaches the Reset of the level (as planned: tenant-clock.ts). */
  private resetLocal(): number | undefined {
    return this.resetMs === undefined ? undefined : this.clock.expectedLocal(this.resetMs);
  }

  /** The level now: refilled since it was set (continuous), or one opener once the Reset passed (window). */
  private levelNow(now: number): number | undefined {
    if (this.level === undefined) return undefined;
    if (this.continuous && this.rate !== undefined) {
      const cap = (this.limit ?? Infinity) - this.inFlight.size;
      return Math.min(Math.max(cap, this.level), this.level + this.rate * (now - this.levelAt));
    }
    const reset = this.resetLocal();
    if (reset !== undefined && now >= reset) return Math.max(this.level, 1);
    return this.level;
  }

  private decide(now: number): Decision {
    if (this.seen === 'unknown') {
      // The first round: one request alone, or as many as the remembered facts prove left.
      if (this.inFlight.size > 0 && this.lastTicket >= this.opening) return { type: 'event' };
    } else if (this.seen === 'headers') {
      const d = this.budgetDecision(now);
      if (d) return d;
    }
    return this.ceilings.decide(now, this.resetLocal()) ?? { type: 'go' };
  }

  /** A wait the tenant's budget asks for, or null to go (as far as the budget is concerned). */
  private budgetDecision(now: number): Decision | null {
    if (now < this.holdUntil) {
      return { type: 'sleep', ms: Math.ceil(this.holdUntil - now), cause: budget(WAIT_REASON.after429) };
    }
    const level = this.levelNow(now);
    if (level === undefined) return null;
    this.rateProbeAt = undefined;
    if (level >= 1)
      return this.holdForProbe(now, level) ?? this.holdForClock(now, level) ?? this.holdForRate(now, level);
    const cause = budget(this.after429 ? WAIT_REASON.after429 : WAIT_REASON.pace);
    if (this.continuous && this.rate !== undefined) {
      // A bucket of one counts its next token from the answer in flight: hear it first.
      if (this.limit === 1 && this.inFlight.size > 0) return { type: 'event' };
      const ms = Math.max(1, Math.ceil((1 - level) / this.rate));
      // An answer due before the wait ends may prove a higher rate: wait for it first.
      const due = this.untilAnswerDue(now);
      if (due !== undefined && due < ms) return { type: 'sleep', ms: due, cause, partial: true };
      return { type: 'sleep', ms, cause };
    }
    // Answers still to come may show more left than the level counts on (it takes
    // every request in flight as not counted yet): hear them before waiting for Reset.
    if (this.probe !== 0 || this.inFlight.size > 0) return { type: 'event' };
    const reset = this.resetLocal();
    if (reset !== undefined) {
      const ms = Math.max(1, Math.ceil(reset - now));
      const cap = Math.max(this.options.maxDelayMs, WINDOW_WAIT_CAP_MS);
      const capped = ms > cap;
      const why = budget(this.after429 ? WAIT_REASON.after429 : WAIT_REASON.reset);
      return { type: 'sleep', ms: capped ? cap : ms, cause: why, capped };
    }
    if (this.inFlight.size > 0) return { type: 'event' };
    return null;
  }

  /**
   * How long until the newest request in flight is due to be answered (two
   * round trips); undefined when none, overdue, or already waited for once.
   */
  private untilAnswerDue(now: number): number | undefined {
    let newest = -Infinity;
    for (const sentAt of this.inFlight.values()) newest = Math.max(newest, sentAt);
    if (newest <= this.heard) return undefined;
    this.heard = newest;
    const due = Math.ceil(newest + 2 * Math.max(this.roundTrip, 1) - now);
    return due > 0 ? due : undefined;
  }

  /**
   * While the model is unknown, the last token of the level waits to go as a
   * probe (see the module comment): until the requests in flight are answered
   * (so the level is exact), then until a continuous bucket would surely have
   * refilled one since the last answer. Not held when that moment cannot come
   * before the Reset (with a round trip to spare): then it goes at once.
   */
  private holdForProbe(now: number, level: number): Decision | null {
    this.probeAt = undefined;
    if (this.model.kind !== 'unknown' || this.continuous || level >= 2 || this.resetMs === undefined)
      return null;
    if (this.probe !== 0 || this.inFlight.size > 0) return { type: 'event' };
    const proven = this.bounds.lower;
    if (proven === undefined) return null;
    const due = this.levelAt + 1 / proven;
    const spare = Math.max(this.roundTrip, 1) * 2;
    if (due + spare >= this.clock.expectedLocal(this.resetMs)) return null;
    // A token's refill takes a Reset's second or more: a continuous bucket names a later Reset
    // after every request, so the probe tells only if surely answered before this Reset.
    if (1 / proven >= 1000 && due + spare >= this.clock.earliestLocal(this.resetMs)) return null;
    this.probeAt = due;
    if (now >= due) return null;
    return { type: 'sleep', ms: Math.max(1, Math.ceil(due - now)), cause: budget(WAIT_REASON.pace) };
  }

  /**
   * In a window whose step leaves room in the bucket (a token held past the
   * boundary is not lost), the last token waits to be served half way through
   * the span in which the tenant's clock may reach the Reset: its Date tells
   * which half holds the boundary, so each window halves the span, and the
   * opener after it goes that much closer to the boundary.
   */
  private holdForClock(now: number, level: number): Decision | null {
    const { kind, step, stepCapped } = this.model;
    if (kind !== 'window' || level >= 2 || this.shared || this.resetMs === undefined || !this.clock.bounded)
      return null;
    if (step === undefined || stepCapped || step + 1 > (this.limit ?? 0)) return null;
    if (this.inFlight.size > 0) return { type: 'event' };
    const earliest = this.clock.earliestLocal(this.resetMs);
    const latest = this.clock.latestLocal(this.resetMs);
    // Answers cannot place the tenant's clock closer than a round trip.
    if (latest - earliest <= CLOCK_PRECISION_MS + this.roundTrip) return null;
    const at = (earliest + latest) / 2 - this.roundTrip / 2;
    if (now >= at) return null;
    return { type: 'sleep', ms: Math.max(1, Math.ceil(at - now)), cause: budget(WAIT_REASON.pace) };
  }

  /**
   * A continuous bucket's rate is proven from below only, and a whole-second
   * Reset spread over few requests leaves it loose. With another request
   * waiting behind this one, this one waits until the bucket holds two tokens
   * at the rate half way between the proven one and the highest the answers
   * allow (the last token to spare, so never a 429): its Remaining then proves
   * the rate above that (refill.ts's growth) or shows it below, and the one
   * behind goes on the token spared. Each answer halves the span. Not when the
   * bucket could fill up meanwhile (the spare would be lost at the brim).
   */
  private holdForRate(now: number, level: number): Decision | null {
    const limit = this.limit ?? 0;
    if (this.model.kind !== 'continuous' || this.shared || limit < 3 || level >= 2 || this.queued < 2)
      return null;
    const lo = this.rate;
    // A probe's finding that a later proof contradicts (another client drew on the bucket) is dropped.
    if (lo !== undefined && this.rateBelow !== undefined && this.rateBelow <= lo) this.rateBelow = undefined;
    const hi = Math.min(
      this.bounds.upper ?? Infinity,
      this.bounds.likelyUpper ?? Infinity,
      this.rateBelow ?? Infinity,
    );
    if (lo === undefined || !Number.isFinite(hi) || hi <= lo * (1 + RATE_PRECISION)) return null;
    // Two tokens, those in flight and what may refill in two round trips must stay below the brim:
    // a token to spare is lost once the bucket is full.
    if (2 + this.inFlight.size + hi * 2 * Math.max(this.roundTrip, 1) > limit) return null;
    const mid = (lo + hi) / 2;
    const held = this.sinceFull.levelAt(now, mid, limit);
    if (held === undefined) return null;
    if (held >= 2) {
      this.rateProbeAt = mid;
      return null;
    }
    return {
      type: 'sleep',
      ms: Math.max(1, Math.ceil((2 - held) / mid)),
      cause: budget(WAIT_REASON.pace),
      partial: true,
    };
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
      if (await this.sleepUntilDeadline(now, d.ms, signal)) continue;
      this.options.onWait(d.ms, d.cause);
      await this.options.sleep(d.ms, signal);
      if (!d.partial && (d.capped || this.options.now() === now)) {
        // A wait cut short by its cap, or a clock that did not move at all:
        // count the wait as served (one request may go) so the loop always
        // makes progress. A timer that fired early on a clock that moved
        // (Node's may, by a millisecond of Date.now; an injected sleep by
        // more) only leads to the next decision: what is left of the wait.
        this.serveWait(now, d);
      }
    }
    this.take(this.options.now());
    return this.lastTicket;
  }

  /**
   * A wait of `ms` that would pass the rate-limit deadline: wait only until
   * it, then end the run (the error thrown is the caller's to replace).
   * False when the wait ends before the deadline.
   */
  private async sleepUntilDeadline(now: number, ms: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.options.deadline?.();
    if (deadline === undefined || now + ms < deadline) return false;
    const left = Math.max(0, Math.ceil(deadline - now));
    if (left > 0) {
      this.options.onWait(left, budget(WAIT_REASON.after429));
      await this.options.sleep(left, signal);
    }
    this.options.onDeadline?.();
    throw new Error('the rate-limit timeout ran out');
  }

  /** Sends a request now: a ticket, one taken from the level (and the ceilings). */
  private take(now: number): void {
    const level = this.levelNow(now);
    const ticket = ++this.lastTicket;
    this.inFlight.set(ticket, now);
    this.answeredAtSend.set(ticket, this.answered);
    this.sinceFull.took(now);
    if (level !== undefined && this.seen === 'headers') {
      if (this.rateProbeAt !== undefined) this.rateProbe = { ticket, rate: this.rateProbeAt };
      if (this.probeAt !== undefined && now >= this.probeAt) {
        this.probe = ticket;
        this.probeBefore = this.levelAnswer;
        this.probeAt = undefined;
      }
      const reset = this.resetLocal();
      // The Reset came: with nothing else left, this request is the opener of the
      // next window; the rest wait for its answer, which tells what was added.
      if (!this.continuous && reset !== undefined && now >= reset) {
        this.rolled = Math.max(this.rolled, this.resetMs!);
        this.opener = ticket;
        this.openedReset = this.resetMs;
        this.resetMs = undefined;
      }
      this.level = level - 1;
      this.levelAt = now;
    }
    this.ceilings.took(now);
  }

  private serveWait(started: number, d: { ms: number; cause: WaitCause; capped?: boolean }): void {
    if (this.ceilings.serveWait(d.cause)) return;
    if (this.level === undefined) return;
    const level = d.capped ? this.level : this.levelNow(started + d.ms);
    if (level === undefined) return;
    this.level = Math.max(level, 1);
    this.levelAt = this.options.now();
    if (d.capped) this.resetMs = undefined;
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
