/**
 * The tenant's clock as seen from ours. X-RateLimit-Reset is a Unix second of
 * the limiter's clock, which may run seconds away from this machine's: the
 * offset (limiter − local, in ms) is kept as an interval [lo, hi] that
 * answers narrow. Only what cannot lie narrows it below a few seconds:
 *
 * - Reset is never before the moment of the answer (the next addition, or the
 *   moment the bucket is full, rounded up), so the offset is at most
 *   Reset − sending.
 * - In a window, an answer naming a later Reset than an earlier answer's was
 *   made once the limiter's clock had passed that earlier Reset (`passed`), so
 *   the offset is at least that Reset − the later answer's arrival.
 *
 * The Date header is not the limiter's clock: real services stamp it in a
 * front end, to the second, from a clock that may be a second off the
 * limiter's, and servers (Node's among them) refresh it once a second, so it
 * can be up to a second stale. A Date says only that the limiter's clock read
 * between Date − 1 s and Date + 3 s when the answer was made: enough to find a
 * tenant whose clock is seconds off ours, never its phase within a second.
 * Date bounds the answers contradict are dropped.
 *
 * Without a lower bound, waits take the tenant's clock for ours (offset 0)
 * until Reset proves it behind, and a 429 corrects them.
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

/** How far below Date the limiter's clock may read: a front end up to 1 s ahead of the limiter. */
export const DATE_EARLY_MS = 1000;
/** How far above Date it may read: the second's rounding, up to 1 s stale, a front end up to 1 s behind. */
export const DATE_LATE_MS = 3000;

const MIN_SLACK_MS = 100;
const MAX_SLACK_MS = 60_000;

export class TenantClock {
  private dateLo = -Infinity;
  private dateHi = Infinity;
  /** Upper bound from Reset (never before the answer). */
  private resetHi = Infinity;
  /** Lower bound from a Reset passed (window model). */
  private passedLo = -Infinity;
  private dated = false;
  /** Extra wait after plans a 429 proved early, ms (doubles with each). */
  private slack = 0;

  observe(r: ClockReading): void {
    if (r.resetMs !== undefined) this.resetHi = Math.min(this.resetHi, r.resetMs - r.sentAt);
    if (this.passedLo > this.resetHi) this.passedLo = -Infinity; // the limiter's clock moved back
    if (r.dateMs !== undefined) {
      const lo = r.dateMs - DATE_EARLY_MS - r.recvAt;
      const hi = r.dateMs + DATE_LATE_MS - r.sentAt;
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
    if (this.dated && (this.dateLo > this.resetHi || this.dateHi < this.passedLo)) this.distrustDate();
  }

  /** An answer that arrived at `recvAt` was made once the limiter's clock had reached `tenantMs`. */
  passed(tenantMs: number, recvAt: number): void {
    const lo = tenantMs - recvAt;
    if (lo > this.resetHi) return; // contradicts Reset: the clock moved; keep what Reset says
    this.passedLo = Math.max(this.passedLo, lo);
    if (this.dated && this.dateHi < this.passedLo) this.distrustDate();
  }

  private distrustDate(): void {
    this.dated = false;
    this.dateLo = -Infinity;
    this.dateHi = Infinity;
  }

  /** Whether the answers bound the offset from below (else `lo` assumes the clocks agree). */
  get bounded(): boolean {
    return Number.isFinite(this.passedLo) || this.dated;
  }

  /** Smallest offset the answers allow (unbounded: 0, or less where Reset proves it). */
  get lo(): number {
    const proven = Math.max(this.passedLo, this.dated ? this.dateLo : -Infinity);
    return Math.min(Number.isFinite(proven) ? proven : 0, this.hi);
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
   * answered 429 naming that Reset: the plan was early. Wait longer each time.
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

  /**
   * Whether an answer was surely made before the limiter's clock reached
   * `tenantMs`: it names a Reset no later (a Reset is never before its
   * answer), or it arrived before the earliest local time of `tenantMs`.
   */
  answeredBefore(r: ClockReading, tenantMs: number): boolean {
    if (r.resetMs !== undefined && r.resetMs <= tenantMs) return true;
    return r.recvAt + this.hi < tenantMs; // false whenever hi is unbounded
  }
}
