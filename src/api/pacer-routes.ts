/**
 * One pacer per rate-limit bucket the tenant's answers show. The service
 * limits some endpoints in groups, each with a bucket of its own, and an
 * answer's X-RateLimit-* headers describe its request's group: one model fed
 * every answer would mix two buckets' Remaining. Every route (an operation)
 * starts on one pacer, the safe side (never more in flight than one bucket
 * allows); a route goes to a pacer of its own, from its next request, once an
 * answer proves it draws on another bucket:
 *
 * - its X-RateLimit-Limit differs from the one the shared pacer knows; or
 * - the shared pacer knows the tenant for a window, and the answer names the
 *   same Reset as the latest answer to another route, which arrived before
 *   this request was sent, with at least as many left: within a window one
 *   bucket's Remaining only falls.
 *
 * The answer that proves it, and those of the route's requests the shared
 * pacer let go before, are not fed to the shared pacer: their slots are
 * cancelled there (the token comes back). The user's requests-per-second
 * ceiling is one for all of them.
 */
import { Pacer, type PacerOptions } from './pacer.js';
import { readRateHeaders, type Headers } from './retry.js';
import type { RateGroupFacts } from './types.js';

interface Issued {
  pacer: Pacer;
  ticket: number;
  route: string;
  sentAt: number;
}

/** The latest answer the shared pacer learned from. */
interface Seen {
  route: string;
  remaining: number;
  resetMs: number;
  recvAt: number;
}

export interface PacerRoutesOptions extends PacerOptions {
  /**
   * The routes the first round (`opening`) was proven for: a request of any
   * other route before the first answer goes alone (its bucket may be another).
   */
  openingRoutes?: readonly string[];
}

export class PacerRoutes {
  private readonly shared: Pacer;
  private readonly own = new Map<string, Pacer>();
  private readonly issued = new Map<number, Issued>();
  private lastTicket = 0;
  private latest: Seen | undefined;
  private readonly options: PacerOptions;
  private readonly openingRoutes: ReadonlySet<string> | undefined;
  /** The pacer each route's latest answer taught. */
  private readonly taught = new Map<string, Pacer>();

  constructor({ opening, openingRoutes, ...options }: PacerRoutesOptions) {
    // One requests-per-second state for every pacer: the ceiling is the client's.
    this.options = { ...options, rpsState: options.rpsState ?? { tokens: 1, at: options.now() } };
    // Only the shared pacer starts a run; a route split off later starts from its own answers.
    this.shared = new Pacer({ ...this.options, ...(opening !== undefined ? { opening } : {}) });
    this.openingRoutes = openingRoutes ? new Set(openingRoutes) : undefined;
  }

  /** What each bucket's answers taught, with its routes (for the next run's first round). */
  facts(): RateGroupFacts[] {
    const groups: RateGroupFacts[] = [];
    for (const pacer of new Set(this.taught.values())) {
      const facts = pacer.facts();
      const routes = [...this.taught].filter(([, p]) => p === pacer).map(([route]) => route);
      if (facts) groups.push({ ...facts, routes: routes.sort() });
    }
    return groups;
  }

  /** Routes paced on a bucket of their own. */
  get splitRoutes(): string[] {
    return [...this.own.keys()];
  }

  /** Resolves with a ticket when a request of `route` may be sent; pass it to release(). */
  async acquire(route: string, signal?: AbortSignal): Promise<number> {
    let pacer = this.own.get(route) ?? this.shared;
    if (this.openingRoutes && !this.openingRoutes.has(route)) this.shared.dropOpening();
    let ticket = await pacer.acquire(signal);
    const own = this.own.get(route);
    if (own && pacer !== own) {
      // Split off while it waited for its turn on the shared pacer: it goes on its own.
      pacer.cancel(ticket);
      pacer = own;
      ticket = await own.acquire(signal);
    }
    this.lastTicket += 1;
    this.issued.set(this.lastTicket, { pacer, ticket, route, sentAt: this.options.now() });
    return this.lastTicket;
  }

  /** Ends a request's slot; `headers` are its response headers (null when no response arrived). */
  release(id: number, headers: Headers | null, status = 0): void {
    const issued = this.issued.get(id);
    if (!issued) return;
    this.issued.delete(id);
    const { pacer, ticket, route } = issued;
    if (
      pacer === this.shared &&
      (this.own.has(route) || (headers && this.provesOwnBucket(issued, headers)))
    ) {
      // Its answer is another bucket's: not the shared pacer's to learn from.
      pacer.cancel(ticket);
      if (!this.own.has(route)) this.own.set(route, new Pacer(this.options));
      return;
    }
    pacer.release(ticket, headers, status);
    if (headers) this.taught.set(route, pacer);
    if (headers && pacer === this.shared) this.note(route, headers);
  }

  private provesOwnBucket(issued: Issued, headers: Headers): boolean {
    const rate = readRateHeaders(headers);
    const known = this.shared.knownLimit;
    if (rate.limit !== undefined && known !== undefined && rate.limit !== known) return true;
    const seen = this.latest;
    if (seen === undefined || seen.route === issued.route || this.shared.refill !== 'window') return false;
    if (rate.remaining === undefined || rate.reset === undefined) return false;
    return (
      rate.reset * 1000 === seen.resetMs && seen.recvAt < issued.sentAt && rate.remaining >= seen.remaining
    );
  }

  private note(route: string, headers: Headers): void {
    const rate = readRateHeaders(headers);
    if (rate.remaining === undefined || rate.reset === undefined) return;
    this.latest = {
      route,
      remaining: rate.remaining,
      resetMs: rate.reset * 1000,
      recvAt: this.options.now(),
    };
  }
}
