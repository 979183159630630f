/**
 * What a token bucket's answers prove about its refill rate, as bounds in
 * tokens per millisecond. Every bound holds whatever the server's timing was,
 * because each answer is placed at the worst instant between its request's
 * sending and its arrival:
 *
 * - Reset: X-RateLimit-Reset (whole seconds, rounded up) is when the bucket is
 *   full again, so the missing tokens refill by then. Remaining is rounded
 *   down, so at least Limit − Remaining − 1 tokens are missing; exactly one
 *   when Remaining = Limit − 1 (the bucket was full before the request: it
 *   never holds more than Limit).
 * - Growth: between an earlier answer (the anchor) and a later one, the bucket
 *   gained what it shows more plus what it served in between. Only requests
 *   sent after the anchor arrived and answered before the later one was sent
 *   are sure to have been served in between, and the anchor's own level is
 *   known to a token (exactly when it was full), so the bound is
 *   (Remaining − anchor's Remaining − 1 + served) ÷ the longest possible time.
 *   Other clients of the same bucket only make it smaller: it measures the
 *   rate left for us.
 * - Ceiling: a full bucket answering a Reset more than a second after its
 *   arrival refills slower than 1 ÷ (Reset − 1 s − arrival).
 * - Drain: the bucket is full again once it has refilled what it lacked
 *   after an earlier answer (the anchor) and what it served since. Of the
 *   answers to requests sent after the anchor arrived, the one served last
 *   follows at least all of them, and its Reset is no later than the latest
 *   of theirs; so the rate is at least (what the anchor lacked + their
 *   count) ÷ (that latest Reset − the anchor's sending). A bucket that was
 *   full in between, or other clients' requests, only make it later. The
 *   rounding of Reset is spread over every token served since the anchor,
 *   so the bound tightens as a long run drains the bucket, whatever the
 *   order in which concurrent requests were served.
 * - Likely ceiling (not a proof: it holds for a client alone on the bucket,
 *   for probes only, never for safety): that Reset is also less than a
 *   second after the bucket is full again, so after an anchor that found it
 *   full the rate is below (1 + their count) ÷ (that Reset − 1 s − the
 *   anchor's arrival).
 */

const ANCHOR_SPACING_MS = 200;
const MAX_ANCHORS = 40;
/** Answers kept for the look back over those that overlap a newer request. */
const TAIL = 1024;
const MS_PER_SECOND = 1000;
/** Baseline of the sustained rate: long enough to average other clients, short enough to follow them. */
const SUSTAINED_MS = 2000;

interface Answered {
  sentAt: number;
  recvAt: number;
}

interface Anchor extends Answered {
  remaining: number;
  /** Whether its level is known exactly (the bucket was full before it). */
  exact: boolean;
  /** Accepted answers since, to requests sent after it arrived. */
  after: number;
  /** The latest Reset of those answers. */
  lastReset: number | undefined;
}

export interface BucketAnswer extends Answered {
  limit: number;
  remaining: number;
  /** Local clock time of X-RateLimit-Reset, when sent: the latest the tenant's clock allows. */
  resetAt?: number;
  /** The earliest local time of X-RateLimit-Reset the tenant's clock allows (default resetAt). */
  resetEarliest?: number;
}

export class RefillBounds {
  /** The latest accepted answers in arrival order. */
  private tail: Answered[] = [];
  private anchors: Anchor[] = [];
  private fromReset: number | undefined;
  private fromGrowth: number | undefined;
  private ceiling: number | undefined;
  private fromOldest: number | undefined;
  private likely: number | undefined;

  /** Largest proven rate, tokens per ms; undefined until an answer proves one. */
  get lower(): number | undefined {
    if (this.fromReset === undefined) return this.fromGrowth;
    if (this.fromGrowth === undefined) return this.fromReset;
    return Math.max(this.fromReset, this.fromGrowth);
  }

  /** Smallest proven ceiling, tokens per ms. */
  get upper(): number | undefined {
    return this.ceiling;
  }

  /** The lowest rate the Resets allow a client alone on the bucket (tokens per ms): an estimate, not a proof. */
  get likelyUpper(): number | undefined {
    return this.likely;
  }

  /** Rate proven by answers' growth alone (the rate other clients leave us). */
  get growth(): number | undefined {
    return this.fromGrowth;
  }

  /**
   * Growth over the last two seconds or so up to the latest answer: with other
   * clients on the bucket the largest short-term proof overstates what they
   * leave us (they do not draw evenly); two seconds average them out and still
   * follow them when they stop.
   */
  get sustained(): number | undefined {
    return this.fromOldest;
  }

  /** Learns from an accepted (not 429) answer. */
  observe(a: BucketAnswer): void {
    const exact = a.remaining === a.limit - 1;
    if (a.resetAt !== undefined && a.resetAt > a.sentAt) {
      const missing = exact ? 1 : a.limit - a.remaining - 1;
      if (missing >= 1) this.fromReset = max(this.fromReset, missing / (a.resetAt - a.sentAt));
      const floor = (a.resetEarliest ?? a.resetAt) - MS_PER_SECOND - a.recvAt;
      if (exact && floor > 0) this.ceiling = min(this.ceiling, 1 / floor);
    }
    // The baseline of `sustained`: the newest anchor at least SUSTAINED_MS old, else the oldest.
    let baseline = this.anchors[0];
    for (const anchor of this.anchors) if (a.recvAt - anchor.sentAt >= SUSTAINED_MS) baseline = anchor;
    for (const anchor of this.anchors) {
      if (anchor.recvAt > a.sentAt) continue;
      // Served in between: answers to requests sent after the anchor arrived, less
      // those still on their way when this request was sent, plus this one.
      let served = anchor.after + 1;
      for (let j = this.tail.length - 1; j >= 0; j--) {
        const x = this.tail[j]!;
        if (x.recvAt <= a.sentAt) break;
        if (x.sentAt >= anchor.recvAt) served -= 1;
      }
      const gained = a.remaining - anchor.remaining - (anchor.exact ? 0 : 1) + served;
      const elapsed = a.recvAt - anchor.sentAt;
      if (anchor === baseline && elapsed > 0) this.fromOldest = Math.max(0, gained) / elapsed;
      if (gained > 0 && elapsed > 0) this.fromGrowth = max(this.fromGrowth, gained / elapsed);
    }
    for (const anchor of this.anchors) {
      if (a.sentAt < anchor.recvAt) continue;
      anchor.after += 1;
      if (a.resetAt === undefined) continue;
      anchor.lastReset = Math.max(anchor.lastReset ?? a.resetAt, a.resetAt);
      const lacked = anchor.exact ? 1 : a.limit - anchor.remaining - 1;
      const span = anchor.lastReset - anchor.sentAt;
      if (span > 0) this.fromReset = max(this.fromReset, (lacked + anchor.after) / span);
      const before = anchor.lastReset - MS_PER_SECOND - anchor.recvAt;
      if (anchor.exact && before > 0) this.likely = min(this.likely, (1 + anchor.after) / before);
    }
    this.tail.push({ sentAt: a.sentAt, recvAt: a.recvAt });
    if (this.tail.length > TAIL) this.tail.splice(0, this.tail.length - TAIL);
    const last = this.anchors[this.anchors.length - 1];
    if (exact || !last || a.recvAt - last.recvAt >= ANCHOR_SPACING_MS) {
      this.anchors.push({
        sentAt: a.sentAt,
        recvAt: a.recvAt,
        remaining: a.remaining,
        exact,
        after: 0,
        lastReset: undefined,
      });
      // Keep the oldest (the longest baseline) and the newest.
      if (this.anchors.length > MAX_ANCHORS) this.anchors.splice(1, 1);
    }
  }

  /** After a 429: what was proven may no longer be left for us (another client may share the bucket). */
  forget(): void {
    this.tail = [];
    this.anchors = [];
    this.fromReset = undefined;
    this.fromGrowth = undefined;
    this.fromOldest = undefined;
    this.likely = undefined;
  }
}

function max(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.max(a, b);
}

function min(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}

/** Requests replayed since the bucket was last seen full; beyond this the rounding it saves is spread thin. */
const MAX_REPLAYED = 256;

/**
 * The level of a continuous bucket since an answer showed it full: Remaining
 * = Limit − 1 leaves exactly Limit − 1 tokens, so later it holds at least
 * that, plus what a proven rate refilled (never above Limit), less every
 * request that may have been served after that answer. Replayed with the
 * newest proven rate, the level does not keep the lower rates learned on the
 * way (Reset's whole seconds spread over a few requests), which a level
 * carried from answer to answer does.
 */
export class LevelSinceFull {
  /** Local arrival of the answer that showed the bucket full; undefined = none. */
  private from: number | undefined;
  private start = 0;
  /** Sending times of the requests since. */
  private takes: number[] = [];

  /** An answer arriving at `at` showed the bucket full; `level` is what it left, less requests it may precede. */
  full(at: number, level: number): void {
    this.from = at;
    this.start = level;
    this.takes = [];
  }

  took(at: number): void {
    if (this.from === undefined) return;
    this.takes.push(at);
    if (this.takes.length > MAX_REPLAYED) this.from = undefined;
  }

  forget(): void {
    this.from = undefined;
  }

  /** Requests we may send at `now` at `rate` (tokens per ms) on a bucket of `limit`; undefined when unknown. */
  levelAt(now: number, rate: number, limit: number): number | undefined {
    if (this.from === undefined) return undefined;
    let level = this.start;
    let at = this.from;
    for (const sent of this.takes) {
      if (sent > at) {
        level = Math.min(limit, level + rate * (sent - at));
        at = sent;
      }
      level -= 1;
    }
    return Math.min(limit, level + rate * Math.max(0, now - at));
  }
}
