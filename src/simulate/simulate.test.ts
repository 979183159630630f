import { describe, expect, it } from 'vitest';
import { policiesOf, type ResourceView } from '../review/index.js';
import { Simulation } from './simulate.js';

function policy(selector: string, configuration: Record<string, unknown>): ResourceView {
  return {
    kind: 'rate_limit_policy',
    address: `rate_limit_policy["oauth_authentication_api","client","${selector}"]`,
    attributes: {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: selector,
      configuration,
    },
  };
}

const T0 = Date.parse('2026-11-20T08:00:00Z');

/** `n` token exchanges of `client` in the second `s` after T0. */
function burst(client: string, s: number, n: number, type = 'seccft'): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    type,
    client_id: client,
    date: new Date(T0 + s * 1000 + (i % 1000)).toISOString(),
  }));
}

function run(events: Record<string, unknown>[], policies: ResourceView[], since: number | null = null) {
  const sim = new Simulation(since);
  for (const e of events) sim.add(e);
  return sim.report(policiesOf(policies));
}

const app = (report: ReturnType<typeof run>, id: string) =>
  [...report.policies.flatMap((p) => p.applications), ...report.unlimited].find((a) => a.clientId === id)!;

describe('Simulation', () => {
  it('governs each application by the documented precedence: its own policy, else its group, else default', () => {
    const report = run(
      [...burst('mobile', 0, 5), ...burst('tpa_a', 0, 3), ...burst('tpa_own', 0, 2), ...burst('web', 0, 1)],
      [
        policy('default', { action: 'block', limit: 100 }),
        policy('third_party_clients', { action: 'log', limit: 50 }),
        policy('client_id:tpa_own', { action: 'block', limit: 1 }),
        policy('client_id:mobile', { action: 'block', limit: 2 }),
      ],
    );
    const governed = Object.fromEntries(
      report.policies.map((p) => [p.policy.selector, p.applications.map((a) => a.clientId)]),
    );
    expect(governed).toEqual({
      default: ['web'],
      third_party_clients: ['tpa_a'],
      'client_id:tpa_own': ['tpa_own'],
      'client_id:mobile': ['mobile'],
    });
    expect(app(report, 'tpa_own').level).toBe('client');
    expect(app(report, 'tpa_a').level).toBe('group');
  });

  it('turns away the requests above the limit in each second under block, and only logs them under log', () => {
    const events = [...burst('mobile', 0, 912), ...burst('mobile', 1, 100), ...burst('mobile', 2, 600)];
    const block = run(events, [policy('client_id:mobile', { action: 'block', limit: 500 })]);
    expect(app(block, 'mobile')).toMatchObject({
      requests: 1612,
      secondsOver: 2,
      turnedAway: 412 + 100,
      logged: 0,
    });
    expect(block.policies[0]!.peakSecond).toEqual({ requests: 912, at: T0 / 1000 });
    expect(block.policies[0]!.suggested).toEqual({ low: 1824, high: 2736 });
    const log = run(events, [policy('client_id:mobile', { action: 'log', limit: 500 })]);
    expect(app(log, 'mobile')).toMatchObject({ secondsOver: 2, turnedAway: 0, logged: 512 });
  });

  it('counts a group on one shared counter, and shares what it turns away among the members by their requests', () => {
    const report = run(
      [...burst('tpa_a', 0, 30), ...burst('tpa_b', 0, 10)],
      [policy('third_party_clients', { action: 'block', limit: 20 })],
    );
    const group = report.policies[0]!;
    expect(group).toMatchObject({ requests: 40, secondsOver: 1, turnedAway: 20, counter: 'shared' });
    expect(app(report, 'tpa_a').turnedAway).toBe(15);
    expect(app(report, 'tpa_b').turnedAway).toBe(5);
    expect(group.suggested).toEqual({ low: 80, high: 120 });
  });

  it('counts each application under default on its own counter at the same limit', () => {
    const report = run(
      [...burst('a', 0, 15), ...burst('b', 0, 15)],
      [policy('default', { action: 'block', limit: 20 })],
    );
    expect(report.policies[0]).toMatchObject({
      requests: 30,
      secondsOver: 0,
      turnedAway: 0,
      counter: 'per-application',
    });
    expect(report.policies[0]!.peakSecond!.requests).toBe(15);
  });

  it('turns away every request at limit 0 and none under allow; an application no policy governs is listed apart', () => {
    const events = [...burst('a', 0, 3), ...burst('b', 0, 3)];
    const report = run(events, [
      policy('client_id:a', { action: 'block', limit: 0 }),
      policy('client_id:b', { action: 'allow' }),
    ]);
    expect(app(report, 'a').turnedAway).toBe(3);
    expect(app(report, 'b')).toMatchObject({ turnedAway: 0, secondsOver: 0 });
    const none = run(events, [policy('client_id:a', { action: 'block', limit: 1 })]);
    expect(none.unlimited.map((x) => x.clientId)).toEqual(['b']);
  });

  it('gives the same report whatever the order of the events (late deliveries, skewed clocks)', () => {
    const events = [...burst('a', 0, 50), ...burst('a', 7, 30), ...burst('b', 3, 40), ...burst('a', 61, 25)];
    const policies = [policy('default', { action: 'block', limit: 20 })];
    const shuffled = [...events].reverse().sort((x, y) => String(x.date).localeCompare(String(y.date)) * -1);
    const interleaved = events.filter((_, i) => i % 2 === 0).concat(events.filter((_, i) => i % 2 === 1));
    expect(run(shuffled, policies)).toEqual(run(events, policies));
    expect(run(interleaved, policies)).toEqual(run(events, policies));
  });

  it('skips events without a type, date or client_id, or with a date that is no date, and says why', () => {
    const report = run(
      [
        { type: 'seccft', date: '2026-11-20T08:00:00Z' },
        { type: 'seccft', client_id: 'a' },
        { type: 'seccft', client_id: 'a', date: 'yesterday' },
        { client_id: 'a', date: '2026-11-20T08:00:00Z' },
        { type: 'sapi', client_id: 'a', date: '2026-11-20T08:00:00Z' },
        { type: 'seccft', client_id: 'a', date: '2026-11-20T08:00:00Z' },
      ],
      [policy('default', { action: 'block', limit: 1 })],
    );
    expect(report.read).toMatchObject({
      records: 6,
      requests: 1,
      skipped: {
        'no-client': 1,
        'no-date': 1,
        'bad-date': 1,
        'no-type': 1,
        'other-type': 1,
        'before-since': 0,
      },
    });
  });

  it('reads an event a log stream wrapped under data, counts api_limit notices apart, and leaves out events before since', () => {
    const report = run(
      [
        {
          log_id: '1',
          data: { type: 's', client_id: 'a', client_name: 'App A', date: '2026-11-20T08:00:00Z' },
        },
        { type: 'api_limit', client_id: 'a', date: '2026-11-20T08:00:01Z' },
        { type: 's', client_id: 'a', date: '2026-11-19T08:00:00Z' },
      ],
      [policy('default', { action: 'log', limit: 1 })],
      T0 - 1000,
    );
    expect(app(report, 'a')).toMatchObject({ name: 'App A', requests: 1, limitNotices: 1 });
    expect(report.read.skipped['before-since']).toBe(1);
  });

  it('reports an empty window: no requests, no peak, no suggestion', () => {
    const report = run([], [policy('default', { action: 'block', limit: 10 })]);
    expect(report.window).toEqual({ from: null, to: null, stepMinutes: 1, points: 0 });
    expect(report.policies[0]).toMatchObject({
      requests: 0,
      applications: [],
      peakSecond: null,
      suggested: null,
    });
  });

  it('draws at most 60 points, each the busiest minute of its step', () => {
    const events = [...burst('a', 0, 5), ...burst('a', 120, 9), ...burst('a', 7 * 86400 - 1, 2)];
    const report = run(events, [policy('default', { action: 'block', limit: 10 })]);
    expect(report.window.stepMinutes).toBe(168);
    expect(app(report, 'a').series).toHaveLength(60);
    expect(app(report, 'a').series[0]).toBe(9);
    expect(app(report, 'a').series.at(-1)).toBe(2);
  });
});
