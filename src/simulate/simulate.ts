/**
 * The simulation: replays requests read from the tenant's logs against a
 * configuration's rate limit policies. Each application seen is governed by
 * the policy the documented precedence picks (src/review explainClients);
 * its requests are counted per second on the counter that policy gives it
 * (its own under a client_id: policy or default, one shared by the group
 * under a group policy), and every second above the limit is a second over,
 * its requests above the limit turned away (block, redirect) or only logged
 * (log). Windows are whole seconds of UTC time, a choice: the service's
 * docs give limits per second and say no more of its windows.
 * Pure: records in, a report out; reading them is sources.ts's job.
 */
import {
  explainClients,
  isEnforcing,
  limitOf,
  type Level,
  type PolicyEntry,
  type ReachCounter,
} from '../review/index.js';
import { readEvent, type SkipReason } from './events.js';
import { SecondCounts } from './seconds.js';

/** The busiest second or minute: its requests and when it started (seconds since the epoch). */
export interface Peak {
  requests: number;
  at: number;
}

/** What the policy would have done to one counter's (or application's) requests. */
export interface Effect {
  requests: number;
  peakSecond: Peak | null;
  peakMinute: Peak | null;
  /** Seconds in which the counter was above the limit. */
  secondsOver: number;
  /** Requests above the limit under block or redirect. */
  turnedAway: number;
  /** Requests above the limit under log (they go through; the service logs them). */
  logged: number;
  /** The busiest minute of each step of the window (window.stepMinutes long), oldest first. */
  series: number[];
}

export interface ApplicationResult extends Effect {
  clientId: string;
  /** The name its events give (client_name), when they give one. */
  name?: string;
  level: Level;
  /** api_limit events the service logged for it in the window. */
  limitNotices: number;
}

/** The docs' advice, 2 to 3 times the observed peak per second, rounded up. */
export interface Suggestion {
  low: number;
  high: number;
}

export interface PolicyResult extends Effect {
  policy: PolicyEntry;
  counter: ReachCounter;
  /** Its limit per second; null for allow. */
  limit: number | null;
  applications: ApplicationResult[];
  suggested: Suggestion | null;
}

export interface SimulationReport {
  window: { from: number | null; to: number | null; stepMinutes: number; points: number };
  read: {
    records: number;
    requests: number;
    limitNotices: number;
    skipped: Record<SkipReason, number>;
  };
  /** Every policy of the configuration, in its order, with the applications it governs among those seen. */
  policies: PolicyResult[];
  /** Applications seen that no policy governs (only the tenant's own limit applies). */
  unlimited: ApplicationResult[];
}

/** Points of a series at most: a chart's or a sparkline's width. */
export const SERIES_POINTS = 60;

interface Seen {
  counts: SecondCounts;
  name?: string;
  notices: number;
}

const SKIP_REASONS: readonly SkipReason[] = [
  'no-type',
  'no-date',
  'bad-date',
  'no-client',
  'other-type',
  'before-since',
];

/** Collects events, then reports. `since`: events before it (ms) are left out. */
export class Simulation {
  private readonly apps = new Map<string, Seen>();
  private readonly skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<
    SkipReason,
    number
  >;
  private records = 0;
  private requests = 0;
  private notices = 0;
  private first = Infinity;
  private last = -Infinity;

  constructor(private readonly since: number | null = null) {}

  /** Reads one record (an event, or one a log stream wrapped). */
  add(record: Record<string, unknown>): void {
    this.records++;
    const e = readEvent(record, this.since);
    if (e.kind === 'skipped') {
      this.skipped[e.reason]++;
      return;
    }
    let app = this.apps.get(e.clientId);
    if (!app) {
      app = { counts: new SecondCounts(), notices: 0 };
      this.apps.set(e.clientId, app);
    }
    if (app.name === undefined && e.clientName !== undefined) app.name = e.clientName;
    if (e.kind === 'limit-notice') {
      app.notices++;
      this.notices++;
      return;
    }
    const second = Math.floor(e.time / 1000);
    app.counts.add(second);
    this.requests++;
    if (second < this.first) this.first = second;
    if (second > this.last) this.last = second;
  }

  /** The report against `policies` (a configuration's, policiesOf). */
  report(policies: readonly PolicyEntry[]): SimulationReport {
    const window = windowOf(this.first, this.last);
    const ids = [...this.apps.keys()].sort();
    const explained = explainClients(
      policies,
      ids.map((client_id) => ({ client_id })),
    );
    const byPolicy = new Map<PolicyEntry, ApplicationResult[]>();
    const unlimited: ApplicationResult[] = [];
    const members = new Map<PolicyEntry, SecondCounts[]>();
    for (const e of explained) {
      const seen = this.apps.get(e.application.client_id)!;
      if (e.policy) (members.get(e.policy) ?? members.set(e.policy, []).get(e.policy)!).push(seen.counts);
    }
    for (const e of explained) {
      const seen = this.apps.get(e.application.client_id)!;
      const shared = e.counter === 'shared' && e.policy ? SecondCounts.sum(members.get(e.policy)!) : null;
      const limit = e.policy ? limitOf(e.policy.configuration) : null;
      const result: ApplicationResult = {
        clientId: e.application.client_id,
        ...(seen.name !== undefined ? { name: seen.name } : {}),
        level: e.level,
        limitNotices: seen.notices,
        ...effectOf(seen.counts, limit, enforcing(e.policy), window, shared),
      };
      if (!e.policy) unlimited.push(result);
      else (byPolicy.get(e.policy) ?? byPolicy.set(e.policy, []).get(e.policy)!).push(result);
    }
    const results = policies.map((p) => policyResult(p, byPolicy.get(p) ?? [], members.get(p) ?? [], window));
    return {
      window,
      read: {
        records: this.records,
        requests: this.requests,
        limitNotices: this.notices,
        skipped: { ...this.skipped },
      },
      policies: results,
      unlimited: unlimited.sort(busiestFirst),
    };
  }
}

const busiestFirst = (a: ApplicationResult, b: ApplicationResult) =>
  b.requests - a.requests || a.clientId.localeCompare(b.clientId);

function enforcing(policy: PolicyEntry | null): boolean {
  return policy !== null && isEnforcing(policy.configuration);
}

type Window = SimulationReport['window'];

function windowOf(first: number, last: number): Window {
  if (first > last) return { from: null, to: null, stepMinutes: 1, points: 0 };
  const from = Math.floor(first / 60) * 60;
  const minutes = Math.floor((last - from) / 60) + 1;
  const stepMinutes = Math.max(1, Math.ceil(minutes / SERIES_POINTS));
  return { from, to: last, stepMinutes, points: Math.ceil(minutes / stepMinutes) };
}

/** Peak second and minute, and the series, of one counter. */
function shapeOf(counts: SecondCounts, window: Window): Pick<Effect, 'peakSecond' | 'peakMinute' | 'series'> {
  let peakSecond: Peak | null = null;
  const minutes = new Map<number, number>();
  counts.forEach((second, n) => {
    if (!peakSecond || n > peakSecond.requests) peakSecond = { requests: n, at: second };
    const minute = Math.floor(second / 60) * 60;
    minutes.set(minute, (minutes.get(minute) ?? 0) + n);
  });
  let peakMinute: Peak | null = null;
  const series = new Array<number>(window.points).fill(0);
  for (const [minute, n] of minutes) {
    if (!peakMinute || n > peakMinute.requests || (n === peakMinute.requests && minute < peakMinute.at))
      peakMinute = { requests: n, at: minute };
    const point = Math.floor((minute - window.from!) / 60 / window.stepMinutes);
    if (n > series[point]!) series[point] = n;
  }
  return { peakSecond, peakMinute, series };
}

/**
 * What a limit does to `counts`: on its own counter, every request above
 * the limit in a second; on a shared one (`shared`, the group's sum), the
 * group's requests above the limit, shared among the members in proportion
 * to their requests in that second.
 */
function effectOf(
  counts: SecondCounts,
  limit: number | null,
  enforces: boolean,
  window: Window,
  shared: SecondCounts | null = null,
): Effect {
  let secondsOver = 0;
  let over = 0;
  if (limit !== null) {
    const counter = shared ?? counts;
    counts.forEach((second, n) => {
      const total = counter.at(second);
      if (total <= limit) return;
      secondsOver++;
      over += ((total - limit) * n) / total;
    });
  }
  const above = Math.round(over);
  return {
    requests: counts.total,
    ...shapeOf(counts, window),
    secondsOver,
    turnedAway: enforces ? above : 0,
    logged: limit !== null && !enforces ? above : 0,
  };
}

function suggestion(peak: Peak | null): Suggestion | null {
  if (!peak) return null;
  return { low: Math.ceil(2 * peak.requests), high: Math.ceil(3 * peak.requests) };
}

const REACH: Record<PolicyEntry['scope']['level'], ReachCounter> = {
  client: 'own',
  group: 'shared',
  default: 'per-application',
};

function policyResult(
  policy: PolicyEntry,
  applications: ApplicationResult[],
  counters: SecondCounts[],
  window: Window,
): PolicyResult {
  const counter = REACH[policy.scope.level];
  const limit = limitOf(policy.configuration);
  applications.sort(busiestFirst);
  let effect: Effect;
  if (counter !== 'per-application' || applications.length === 0) {
    effect = effectOf(
      SecondCounts.sum(counters.length > 0 ? counters : [new SecondCounts()]),
      limit,
      enforcing(policy),
      window,
    );
  } else {
    // Each application on its own counter: the totals add up, the peak is the busiest application's.
    const busiest = applications.reduce((a, b) =>
      (b.peakSecond?.requests ?? 0) > (a.peakSecond?.requests ?? 0) ? b : a,
    );
    effect = {
      requests: sum(applications, (a) => a.requests),
      peakSecond: busiest.peakSecond,
      peakMinute: busiest.peakMinute,
      secondsOver: sum(applications, (a) => a.secondsOver),
      turnedAway: sum(applications, (a) => a.turnedAway),
      logged: sum(applications, (a) => a.logged),
      series: busiest.series,
    };
  }
  return { policy, counter, limit, applications, ...effect, suggested: suggestion(effect.peakSecond) };
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((n, item) => n + of(item), 0);
}
