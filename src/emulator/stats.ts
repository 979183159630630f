/**
 * Request counters behind stats() and requestCount(): every request except the
 * admin API's, by route label and by outcome (status code, or "reset" / "lost"
 * for connections dropped on purpose), and when the first and last API request
 * reached the rate limit (the benchmark's first-to-last phase).
 */
import type { EmulatorStats } from './types.js';

export class StatsRecorder {
  private requests = 0;
  private management = 0;
  private byStatus = new Map<string, number>();
  private byRoute = new Map<string, number>();
  private firstAt: number | undefined;
  private lastAt: number | undefined;

  /** Counts a request on arrival; the token endpoint is not a management API request. */
  received(label: string, isToken: boolean): void {
    this.requests += 1;
    if (!isToken) this.management += 1;
    this.byRoute.set(label, (this.byRoute.get(label) ?? 0) + 1);
  }

  /** An API request reached the rate limit step at `atMs` (the tenant's clock). */
  limited(atMs: number): void {
    this.firstAt ??= atMs;
    this.lastAt = atMs;
  }

  outcome(status: number | 'reset' | 'lost'): void {
    const key = String(status);
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
  }

  requestCount(): number {
    return this.management;
  }

  snapshot(): EmulatorStats {
    return {
      requests: this.requests,
      byStatus: Object.fromEntries(this.byStatus),
      byRoute: Object.fromEntries(this.byRoute),
      ...(this.firstAt === undefined ? {} : { firstRequestAt: this.firstAt, lastRequestAt: this.lastAt }),
    };
  }

  clear(): void {
    this.requests = 0;
    this.management = 0;
    this.byStatus = new Map();
    this.byRoute = new Map();
    this.firstAt = undefined;
    this.lastAt = undefined;
  }
}
