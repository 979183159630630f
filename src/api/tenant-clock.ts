/**
 * The tenant's clock as seen from ours. X-RateLimit-Reset is a Unix second of
 * the tenant's clock, which may run seconds away from this machine's: the
 * offset (tenant − local, in ms) is kept as an interval [lo, hi] that every
 * answer narrows.
 *
 * - Date (the tenant's second when it answered, truncated): the answer was
 *   made between the request's sending and its arrival, so the offset lies in
 *   [Date − arrival, Date + 1 s − sending]. Answers at different points of a
 *   second narrow it to a few milliseconds.
 * - Reset is never before the moment of the answer (the next addition, or the
 *   moment the bucket is full, rounded up), so the offset is at most
 *   Reset − sending. Where that contradicts Date (a 429 to a request sent
 *   after the Date bounds put its Reset), Date and the limiter keep different
 *   clocks: the limiter wins and the Date bounds are dropped.
 *
 * Without a Date header nothing bounds the offset from below: waits take the
 * tenant's clock for ours (offset 0) until Reset proves it behind, and a 429
 * corrects them; proofs of when an answer was made use only what Reset proves.
 */

/** What one answer says about the tenant's clock. */
export interface ClockReading {
  sentAt: number;
  recvAt: number;
  /** The Date header, ms since the epoch (a whole second), when sent. */
  dateMs?: number;
  /** X-RateLimit-Reset in ms, when sent. */
  resetMs?: number;
}

const MIN_SLACK_MS = 100;
const MAX_SLACK_MS = 60_000;

export class TenantClock {
  private dateLo = -Infinity;
  private dateHi = Infinity;
  /** Upper bound from Reset (never before the answer). */
  private resetHi = Infinity;
  private dated = false;
  /** Extra wait after plans a 429 proved early, ms (doubles with each). */
  private slack = 0;

  /** Whether answers carry a Date header that agrees with the limiter. */
  get hasDate(): boolean {
    return this.dated;
  }

  observe(r: ClockReading): void {
    if (r.resetMs !== undefined) this.resetHi = Math.min(this.resetHi, r.resetMs - r.sentAt);
    if (r.dateMs !== undefined) {
      const lo = r.dateMs - r.recvAt;
      const hi = r.dateMs + 1000 - r.sentAt;
      if (lo > this.dateHi || hi < this.dateLo) {
        // The clock moved (or answers come from several clocks): start again from this one.
        this.dateLo = lo;
        this.dateHi = hi;
      } else {
        this.dateLo = Math.max(this.dateLo, lo);
        this.dateHi = Math.min(this.dateHi, hi);
      }
      this.dated = true;
    }
    if (this.dated && this.dateLo > this.resetHi) this.distrustDate();
  }

  private distrustDate(): void {
    this.dated = false;
    this.dateLo = -Infinity;
    this.dateHi = Infinity;
  }

  /** Smallest offset the answers allow (without Date: 0, or less where Reset proves it). */
  get lo(): number {
    return Math.min(this.dated ? this.dateLo : 0, this.hi);
  }

  /** Largest offset the answers allow. */
  get hi(): number {
    return this.dated ? Math.min(this.dateHi, this.resetHi) : this.resetHi;
  }

  /**
   * The offset to plan with: none while the answers allow the two clocks to
   * agree (the common case: both keep time by NTP), else the smallest offset
   * they allow (a wait long enough whatever the truth). A 429 to a request
   * sent on that plan proves the clocks apart, and the plan moves.
   */
  get planned(): number {
    return (this.lo <= 0 && 0 <= this.hi ? 0 : this.lo) - this.slack;
  }

  /**
   * A request sent when the plan put the tenant at or past a Reset was
   * answered 429 naming that Reset: the plan was early. Date and the limiter
   * keep different clocks, or there is no Date: wait longer each time.
   */
  missed(): void {
    if (this.dated) this.distrustDate();
    this.slack = Math.min(Math.max(this.slack * 2, MIN_SLACK_MS), MAX_SLACK_MS);
  }

  /** The local time at which to expect the tenant's clock at `tenantMs` (see `planned`). */
  expectedLocal(tenantMs: number): number {
    return tenantMs - this.planned;
  }

  /** The earliest local time to expect the tenant's clock at `tenantMs`: as planned, or the bounds' earliest when the clocks are apart. */
  expectedEarliest(tenantMs: number): number {
    const planned = this.planned;
    return tenantMs - (planned === 0 ? 0 : this.hi);
  }

  /** The latest local time at which the tenant's clock can reach `tenantMs`. */
  latestLocal(tenantMs: number): number {
    return tenantMs - this.lo;
  }

  /** The earliest local time at which the tenant's clock can reach `tenantMs`. */
  earliestLocal(tenantMs: number): number {
    return tenantMs - this.hi;
  }

  /** Whether an answer was surely made before the tenant's clock reached `tenantMs`. */
  answeredBefore(r: ClockReading, tenantMs: number): boolean {
    if (r.dateMs !== undefined && this.dated) return r.dateMs + 1000 <= tenantMs;
    return r.recvAt + this.hi < tenantMs; // false whenever hi is unbounded
  }
}
