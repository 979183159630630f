/**
 * Token bucket per client, refilled continuously from an injectable clock.
 *
 * Header semantics (sent on every response of the management API and the
 * token endpoint, with or without a configured limit):
 * - X-RateLimit-Limit: the bucket size (burst), an integer.
 * - X-RateLimit-Remaining: whole requests left in the bucket after this one.
 * - X-RateLimit-Reset: Unix time in seconds (rounded up) at which the bucket
 *   will be full again. After a 429 a client may send again once that time
 *   has passed (or earlier: one request's worth refills after 1/perSecond s).
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the bucket is full again. */
  resetSec: number;
  /** Whole seconds until one request's worth is available (at least 1); meaningful when denied. */
  retryAfterSec: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

const EPSILON = 1e-9;

export class RateLimiter {
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
