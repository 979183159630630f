/**
 * The user's ceilings on top of the tenant's budget: --max-rps (a token
 * bucket of one request on the injected clock) and --max-rate (a share of the
 * sustained rate the pacer learned: a bucket holding that share of the burst,
 * refilled at that share of the sustained rate, so that from the first
 * request tenantform leaves the rest of the tenant's budget to its other
 * clients). The sustained rate is what the answers prove, from below, but at
 * least the burst a minute (BURST_REFILL_MS).
 */

/**
 * Why a wait happens, typed: the tenant's budget (with the words of why), or
 * one of the user's ceilings, which the CLI words with its own flags.
 */
export type WaitCause =
  | { kind: 'rate-limit'; reason: string }
  | { kind: 'max-rps'; rate: number }
  | { kind: 'max-rate'; share: number };

export type Decision =
  | { type: 'go' }
  | { type: 'event' }
  /** `partial`: a wait cut short to hear an answer, never counted as served. */
  | { type: 'sleep'; ms: number; cause: WaitCause; capped?: boolean; partial?: boolean };

/** The requests-per-second ceiling's bucket of one request: tokens and when last counted. */
export interface RpsState {
  tokens: number;
  at: number;
}

export interface CeilingOptions {
  now: () => number;
  /** Requests per second; undefined = none. */
  maxRps?: number;
  /** Share of the sustained rate, in (0, 1]; undefined = all. */
  share?: number;
  /** The requests-per-second state, when shared with other pacers' ceilings. */
  rpsState?: RpsState;
}

/**
 * The longest the share assumes a tenant takes to refill its burst: the
 * service's longest documented window (a minute). A share of a tenant whose
 * bucket stays full (an unlimited one, or a tiny share of a large one) is a
 * share of at least its burst a minute: slow, but never a wait of hours.
 */
const BURST_REFILL_MS = 60_000;

export class UserCeilings {
  private readonly rps: RpsState;
  /** The share's bucket: requests we may send; undefined until the burst is known. */
  private shareTokens: number | undefined;
  private shareAt: number;
  private shareCap = 1;
  /** Share of the sustained rate, tokens per ms; undefined until learned. */
  private shareRate: number | undefined;

  constructor(private readonly options: CeilingOptions) {
    this.rps = options.rpsState ?? { tokens: 1, at: options.now() };
    this.shareAt = options.now();
  }

  private get share(): number | undefined {
    const s = this.options.share;
    return s !== undefined && s < 1 ? s : undefined;
  }

  /** What the answers taught: the tenant's burst and sustained rate (tokens per ms). */
  learn(limit: number, sustained: number | undefined): void {
    const share = this.share;
    if (share === undefined) return;
    this.refillShare(this.options.now());
    this.shareCap = Math.max(1, share * limit);
    // The first answer: the share of the burst, less the request that brought it.
    if (this.shareTokens === undefined) this.shareTokens = this.shareCap - 1;
    if (sustained === undefined) return;
    // The answers prove a sustained rate from below only (a bucket that refilled all we took);
    // a share of it alone would shrink with the share. Take the tenant to refill its burst in a minute at least.
    const known = Math.max(sustained, limit / BURST_REFILL_MS);
    this.shareRate = Math.max(this.shareRate ?? 0, share * known);
  }

  private refillShare(now: number): void {
    if (this.shareTokens !== undefined && this.shareRate !== undefined) {
      this.shareTokens = Math.min(this.shareCap, this.shareTokens + (now - this.shareAt) * this.shareRate);
    }
    this.shareAt = now;
  }

  private refillRps(now: number): void {
    const rate = this.options.maxRps;
    if (rate === undefined) return;
    this.rps.tokens = Math.min(1, this.rps.tokens + ((now - this.rps.at) * rate) / 1000);
    this.rps.at = now;
  }

  /**
   * A wait a ceiling asks for, or null. `resetAt`: the local time the tenant's
   * budget next grows (its Reset), when known. Until the sustained rate is
   * learned, the share lets one request go each time that passes: its answer
   * shows what the tenant added.
   */
  decide(now: number, resetAt?: number): Decision | null {
    if (this.share !== undefined && this.shareTokens !== undefined) {
      this.refillShare(now);
      if (this.shareTokens < 1) {
        const cause: WaitCause = { kind: 'max-rate', share: this.share };
        if (this.shareRate !== undefined) {
          return {
            type: 'sleep',
            ms: Math.max(1, Math.ceil((1 - this.shareTokens) / this.shareRate)),
            cause,
          };
        }
        if (resetAt === undefined) return { type: 'event' };
        if (now < resetAt) return { type: 'sleep', ms: Math.max(1, Math.ceil(resetAt - now)), cause };
      }
    }
    const rate = this.options.maxRps;
    if (rate !== undefined) {
      this.refillRps(now);
      if (this.rps.tokens < 1) {
        return {
          type: 'sleep',
          ms: Math.ceil(((1 - this.rps.tokens) * 1000) / rate),
          cause: { kind: 'max-rps', rate },
        };
      }
    }
    return null;
  }

  /** A request went out. */
  took(now: number): void {
    if (this.options.maxRps !== undefined) this.rps.tokens -= 1;
    if (this.shareTokens !== undefined) {
      this.refillShare(now);
      this.shareTokens -= 1;
    }
  }

  /** After a wait that a clock cut short: true when it was a ceiling's (one request may go). */
  serveWait(cause: WaitCause): boolean {
    const now = this.options.now();
    if (cause.kind === 'max-rps') {
      this.refillRps(now);
      this.rps.tokens = Math.max(this.rps.tokens, 1);
      return true;
    }
    if (cause.kind === 'max-rate') {
      this.refillShare(now);
      this.shareTokens = Math.max(this.shareTokens ?? 1, 1);
      return true;
    }
    return false;
  }
}
