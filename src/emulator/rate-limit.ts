/**
 * The emulator's rate limiters: one bucket per key on an injectable clock (the
 * tenant's clock: an emulator with a clock skew passes a shifted one). Which
 * one a tenant gets, from its options or a published tier: rate-limit-options.ts.
 * Two models:
 *
 * - WindowBucket, the real service's documented model (public docs, "Rate
 *   limits of the real service" in management-api-beyond-spec.md): the bucket
 *   holds at most the burst; the sustained rate is added in whole steps at the
 *   top of each window (aligned to the tenant clock: whole seconds, or whole
 *   minutes for a 60 s window), never above the burst.
 *   X-RateLimit-Remaining: requests left until tokens are next added;
 *   X-RateLimit-Reset: the Unix second at which they are next added.
 * - TokenBucket (RateLimiter), the emulator's earlier model, kept as an option:
 *   tokens trickle in continuously at perSecond; X-RateLimit-Reset is the Unix
 *   second (rounded up) at which the bucket is full again.
 *
 * Both start full. After a 429 a client may send again at Reset (the window
 * model) or once one request's worth has refilled (the token bucket).
 */

export interface RateDecision {
  /** The tenant-clock time (ms) the decision was taken at. */
  atMs: number;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds of X-RateLimit-Reset: when tokens are next added (window) or the bucket is full (token bucket). */
  resetSec: number;
  /** Whole seconds until one request's worth is available (at least 1); meaningful when denied. */
  retryAfterSec: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const EPSILON = 1e-9;

export interface Limiter {
  readonly burst: number;
  /** Takes one request's worth from `key`'s bucket when there is one. */
  take(key: string): RateDecision;
  clear(): void;
}

/** Continuous refill at perSecond; Reset = when the bucket is full again. */
export class RateLimiter implements Limiter {
  private readonly buckets = new Map<string, Bucket>();
  readonly burst: number;

  constructor(
    private readonly perSecond: number,
    burst: number | undefined,
    private readonly now: () => number,
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new RangeError('rateLimit.perSecond must be positive');
    this.burst = burst ?? Math.max(1, Math.ceil(perSecond));
    if (!Number.isInteger(this.burst) || this.burst < 1)
      throw new RangeError('rateLimit.burst must be a whole number ≥ 1');
  }

  /** Takes one request's worth from `key`'s bucket when there is one. */
  take(key: string): RateDecision {
    const nowMs = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedMs: nowMs };
    const elapsed = Math.max(0, nowMs - bucket.updatedMs);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (elapsed * this.perSecond) / 1000);
    bucket.updatedMs = nowMs;
    const allowed = bucket.tokens >= 1 - EPSILON;
    if (allowed) bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.buckets.set(key, bucket);
    const fullAtMs = nowMs + ((this.burst - bucket.tokens) / this.perSecond) * 1000;
    return {
      atMs: nowMs,
      allowed,
      limit: this.burst,
      remaining: Math.floor(bucket.tokens + EPSILON),
      resetSec: Math.ceil(fullAtMs / 1000 - EPSILON),
      retryAfterSec: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond - EPSILON)),
    };
  }

  clear(): void {
    this.buckets.clear();
  }
}

interface WindowState {
  tokens: number;
  /** Index of the window the tokens were last counted in. */
  window: number;
}

export interface WindowBucketOptions {
  /** Tokens added at the top of each window (whole steps). */
  perWindow: number;
  /** Bucket size; the bucket never holds more. */
  burst: number;
  /** Window length in milliseconds, a whole number of seconds. Default 1000. */
  windowMs?: number;
}

/** The documented model: perWindow tokens added at the top of each window, up to the burst. */
export class WindowBucket implements Limiter {
  private readonly buckets = new Map<string, WindowState>();
  readonly burst: number;
  readonly perWindow: number;
  readonly windowMs: number;

  constructor(
    options: WindowBucketOptions,
    private readonly now: () => number,
  ) {
    const { perWindow, burst, windowMs = 1000 } = options;
    if (!Number.isInteger(perWindow) || perWindow < 1)
      throw new RangeError('rateLimit.perWindow must be a whole number ≥ 1');
    if (!Number.isInteger(burst) || burst < 1)
      throw new RangeError('rateLimit.burst must be a whole number ≥ 1');
    if (!Number.isInteger(windowMs / 1000) || windowMs < 1000)
      throw new RangeError('rateLimit.windowMs must be a whole number of seconds');
    this.perWindow = perWindow;
    this.burst = burst;
    this.windowMs = windowMs;
  }

  take(key: string): RateDecision {
    const nowMs = this.now();
    const window = Math.floor(nowMs / this.windowMs);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, window };
    if (window > bucket.window) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + (window - bucket.window) * this.perWindow);
      bucket.window = window;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    const nextMs = (window + 1) * this.windowMs;
    return {
      atMs: nowMs,
      allowed,
      limit: this.burst,
      remaining: bucket.tokens,
      resetSec: nextMs / 1000,
      retryAfterSec: Math.max(1, Math.ceil((nextMs - nowMs) / 1000)),
    };
  }

  clear(): void {
    this.buckets.clear();
  }
}

/**
 * Bucket size announced when no limit is configured. The bucket refills
 * instantly: every answer says it holds UNLIMITED_BUCKET − 1 more requests
 * and is full again at the current second. A client that learns from the
 * headers then never waits; it stays bounded by its own parallelism.
 */
export const UNLIMITED_BUCKET = 10_000;

/** The decision of a tenant without a limit: always allowed, the bucket always full. */
export function unlimitedDecision(nowMs: number): RateDecision {
  return {
    atMs: nowMs,
    allowed: true,
    limit: UNLIMITED_BUCKET,
    remaining: UNLIMITED_BUCKET - 1,
    resetSec: Math.ceil(nowMs / 1000 - EPSILON),
    retryAfterSec: 1,
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSec),
  };
}
