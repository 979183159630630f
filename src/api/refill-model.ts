/**
 * How a tenant's budget comes back, told from its answers alone. The service
 * documents a window model (whole steps added at the top of each window,
 * Reset = the next addition); a tenant may also refill continuously (Reset =
 * when the bucket is full again). The pacer must hold on both, so it starts
 * from what both promise — tokens are back by Reset — and takes the tenant
 * for a continuous bucket only once an answer proves a refill inside a
 * window:
 *
 * - an answer made before an earlier answer's Reset (on the tenant's clock)
 *   that names another Reset (a window names the same Reset until it comes),
 *   or shows at least as many left (a window only loses tokens until then:
 *   this one took one itself, other clients only take more).
 * The pacer asks the question on purpose with its last token (a probe, sent
 * once a continuous bucket would surely have refilled one): made before the
 * Reset and showing no refill, the tenant is a window for the rest of the run
 * (so is a probe answered 429).
 *
 * For a window it also learns the window's length (the step between two
 * Resets) and the step added at each (a lower bound: what one boundary
 * showed, less whatever other clients took; `stepCapped` when the burst cut
 * it short, so the true step may be larger).
 */
import type { ClockReading, TenantClock } from './tenant-clock.js';

export type RefillKind = 'unknown' | 'window' | 'continuous';

export interface AcceptedAnswer extends ClockReading {
  limit: number;
  remaining: number;
  resetMs?: number;
}

/** Answers kept to compare a new one with. */
const KEPT = 64;

export class RefillModel {
  kind: RefillKind = 'unknown';
  /** Window length, ms: the smallest step between two Resets seen. */
  windowMs: number | undefined;
  /** Tokens one window boundary was seen to add (at least). */
  step: number | undefined;
  /** Whether the largest step seen filled the bucket (the true step may be larger). */
  stepCapped = false;
  private readonly recent: AcceptedAnswer[] = [];
  /** The latest Reset named, tenant ms. */
  private latestReset = -Infinity;
  /**
   * The least offset of the limiter's clock from ours (ms) a window would
   * need: an answer naming a later Reset than one seen before was made past it.
   */
  private windowLo = -Infinity;

  constructor(private readonly clock: TenantClock) {}

  /** Learns from an accepted answer (after the clock has). */
  observe(a: AcceptedAnswer): void {
    this.checkResetPace(a);
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const before = this.recent[i]!;
      if (before.recvAt >= a.sentAt) continue; // not surely served before this one (the same instant may be either)
      this.compare(before, a);
    }
    this.recent.push(a);
    if (this.recent.length > KEPT) this.recent.shift();
  }

  /**
   * Resets that move on faster than the clock: in a window each later Reset
   * shows the limiter's clock past the one before, so the answers would need
   * an offset above what Reset allows (every Reset is after its answer): a
   * bucket full again later as it drains (three Resets a second apart within
   * a few milliseconds), not a window.
   */
  private checkResetPace(a: AcceptedAnswer): void {
    if (a.resetMs === undefined) return;
    if (a.resetMs > this.latestReset && Number.isFinite(this.latestReset)) {
      this.windowLo = Math.max(this.windowLo, this.latestReset - a.recvAt);
      if (this.kind === 'unknown' && this.windowLo > this.clock.hi) this.kind = 'continuous';
    }
    this.latestReset = Math.max(this.latestReset, a.resetMs);
  }

  private compare(before: AcceptedAnswer, a: AcceptedAnswer): void {
    if (before.resetMs === undefined || a.resetMs === undefined) return;
    if (this.kind !== 'continuous' && this.clock.answeredBefore(a, before.resetMs)) {
      if (a.resetMs !== before.resetMs || a.remaining >= before.remaining) this.kind = 'continuous';
      return;
    }
    const gap = a.resetMs - before.resetMs;
    if (gap <= 0) return;
    if (this.windowMs === undefined || gap < this.windowMs) this.windowMs = gap;
    if (gap !== this.windowMs) return;
    // One boundary between them: it added what this one shows more, plus the one it took.
    const added = a.remaining + 1 - before.remaining;
    if (added > (this.step ?? 0)) {
      this.step = added;
      this.stepCapped = a.remaining >= a.limit - 1;
    }
  }

  /**
   * The answer to a probe sent once a continuous bucket would have refilled a
   * token since `before`: made before that answer's Reset, it shows a refill
   * (continuous, found by observe) or none (a window).
   */
  probeAnswered(probe: AcceptedAnswer, before: AcceptedAnswer): void {
    if (this.kind !== 'unknown' || before.resetMs === undefined) return;
    if (!this.clock.answeredBefore(probe, before.resetMs)) return; // the window may have turned
    if (probe.remaining < before.remaining && probe.resetMs === before.resetMs) this.kind = 'window';
  }

  /** A probe was answered 429: tokens come back at the Reset, not before. */
  probeRefused(): void {
    if (this.kind === 'unknown') this.kind = 'window';
  }
}
