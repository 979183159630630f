/**
 * Requests per second of one counter, over any span, in memory that grows
 * with the hours that had traffic and not with the events: one array of
 * 3,600 counts per hour seen. Events may come in any order (log streams
 * deliver late, clocks skew): a count does not care.
 */

const HOUR = 3600;

export class SecondCounts {
  private readonly hours = new Map<number, Uint32Array>();
  /** Requests counted. */
  total = 0;

  /** Counts one request at `second` (seconds since the epoch). */
  add(second: number, n = 1): void {
    const hour = Math.floor(second / HOUR);
    let counts = this.hours.get(hour);
    if (!counts) {
      counts = new Uint32Array(HOUR);
      this.hours.set(hour, counts);
    }
    counts[second - hour * HOUR]! += n;
    this.total += n;
  }

  /** The count at `second`. */
  at(second: number): number {
    const hour = Math.floor(second / HOUR);
    return this.hours.get(hour)?.[second - hour * HOUR] ?? 0;
  }

  /** The hours that hold counts, in order (each the hour's first second). */
  hourStarts(): number[] {
    return [...this.hours.keys()].sort((a, b) => a - b).map((h) => h * HOUR);
  }

  /** Calls `visit` for every second with a count, in time order. */
  forEach(visit: (second: number, count: number) => void): void {
    for (const start of this.hourStarts()) {
      const counts = this.hours.get(start / HOUR)!;
      for (let i = 0; i < HOUR; i++) if (counts[i]! > 0) visit(start + i, counts[i]!);
    }
  }

  /** The sum of several counters (a group's members, which share one counter). */
  static sum(parts: readonly SecondCounts[]): SecondCounts {
    if (parts.length === 1) return parts[0]!;
    const out = new SecondCounts();
    for (const p of parts) p.forEach((second, count) => out.add(second, count));
    return out;
  }
}
