/**
 * `tenantform simulate` output: what each policy would have done to the
 * traffic read, as text (a one-line sparkline per application), Markdown (a
 * pull-request comment, with a Mermaid xychart-beta per application a policy
 * would have limited) or JSON. Client ids and names come from logs: they are
 * printed through `printable` (control characters escaped) and, in
 * Markdown, escaped for the table or chart they sit in.
 */
import type { ReadSummary } from '../run/simulate.js';
import { codeCell, escapeCell } from '../plan/index.js';
import { isEnforcing } from '../review/index.js';
import { actionShort, actionWords } from '../review/words.js';
import {
  printable,
  type ApplicationResult,
  type Effect,
  type Peak,
  type PolicyResult,
  type SimulationReport,
} from '../simulate/index.js';

export type SimulateFormat = 'text' | 'markdown' | 'json';

/** Where the events came from, for the report's first line. */
export type { ReadSummary };

const number = (n: number) => n.toLocaleString('en-US');

/** "1,240 requests", "1 second". */
function plural(n: number, one: string): string {
  return `${number(n)} ${n === 1 ? one : `${one}s`}`;
}

/** "2026-11-23 08:00:03Z" (seconds since the epoch). */
export function when(seconds: number, minute = false): string {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, minute ? 16 : 19)}Z`;
}

const BARS = '▁▂▃▄▅▆▇█';

/** The series as a line of bars, highest = █; empty for no points. */
export function sparkline(series: readonly number[]): string {
  const top = Math.max(0, ...series);
  return series.map((n) => (top === 0 ? BARS[0] : BARS[Math.min(7, Math.floor((n / top) * 7.999))])).join('');
}

function appName(a: ApplicationResult): string {
  return printable(a.name ? `${a.name} (${a.clientId})` : a.clientId);
}

function peakWords(p: Peak | null, unit: 's' | 'min'): string {
  if (!p) return 'none';
  return unit === 's'
    ? `${number(p.requests)}/s at ${when(p.at)}`
    : `${number(p.requests)}/min at ${when(p.at, true)}`;
}

/** "would have turned away 1,240 requests in 3 seconds", or what log would have done, or nothing over. */
export function effectWords(e: Effect, limit: number | null, enforcing: boolean): string {
  if (limit === null) return 'no limit';
  if (e.secondsOver === 0) return `never over ${number(limit)}/s`;
  const seconds = plural(e.secondsOver, 'second');
  if (enforcing) return `would have turned away ${plural(e.turnedAway, 'request')} in ${seconds}`;
  return `would have logged ${plural(e.logged, 'request')} over the limit in ${seconds} (log never blocks)`;
}

function suggestWords(r: PolicyResult): string | null {
  if (!r.suggested) return null;
  return `${number(r.suggested.low)}–${number(r.suggested.high)}/s (the docs' 2–3 × observed peak of ${number(r.peakSecond!.requests)}/s)`;
}

const COUNTER_WORDS: Record<PolicyResult['counter'], string> = {
  own: 'on its own counter',
  shared: 'on one counter shared by the group',
  'per-application': 'each application on its own counter',
};

function where(r: PolicyResult): string {
  const s = r.policy.source;
  return s && s.line > 0 ? ` (${s.file}:${s.line}:${s.col})` : '';
}

function appText(a: ApplicationResult, r: PolicyResult | null): string[] {
  const enforcing = r ? isEnforcing(r.policy.configuration) : false;
  const effect = r ? `; ${effectWords(a, r.limit, enforcing)}` : '';
  const notices =
    a.limitNotices > 0 ? `; the service logged ${plural(a.limitNotices, 'api_limit event')}` : '';
  return [
    `    ${appName(a)}`,
    `      ${plural(a.requests, 'request')}, peak ${peakWords(a.peakSecond, 's')}${effect}${notices}`,
    ...(a.series.length > 0 ? [`      ${sparkline(a.series)}`] : []),
  ];
}

function policyText(r: PolicyResult): string[] {
  const lines = [
    `Policy ${r.policy.selector}${where(r)}`,
    `  action:   ${actionWords(r.policy.configuration)}, ${COUNTER_WORDS[r.counter]}`,
  ];
  if (r.applications.length === 0)
    return [...lines, '  no requests of the applications it governs in the window'];
  lines.push(
    `  requests: ${number(r.requests)} of ${plural(r.applications.length, 'application')}; peak ${peakWords(r.peakSecond, 's')}, peak minute ${peakWords(r.peakMinute, 'min')}`,
    `  effect:   ${effectWords(r, r.limit, isEnforcing(r.policy.configuration))}`,
  );
  const suggest = suggestWords(r);
  if (suggest) lines.push(`  suggest:  ${suggest}`);
  lines.push('  applications:');
  for (const a of r.applications) lines.push(...appText(a, r));
  return lines;
}

/** "12,345 requests of 4 applications from … to …", with what was read and left out. */
export function headline(report: SimulationReport, read: ReadSummary): string[] {
  const apps = report.policies.reduce((n, p) => n + p.applications.length, report.unlimited.length);
  const { window: w, read: r } = report;
  const span = w.from !== null ? ` from ${when(w.from, true)} to ${when(w.to!)}` : '';
  const skipped = Object.entries(r.skipped).filter(([reason, n]) => n > 0 && reason !== 'other-type');
  const lines = [
    `Simulated ${plural(r.requests, 'request')} of ${plural(apps, 'application')}${span}.`,
    `Read ${plural(r.records, 'event')} from ${printable(read.source)}: ${number(r.requests)} Authentication API requests, ${number(r.skipped['other-type'])} of other types, ${number(r.limitNotices)} api_limit${skipped.length > 0 ? `; skipped ${skipped.map(([reason, n]) => `${number(n)} (${SKIP_WORDS[reason]})`).join(', ')}` : ''}.`,
  ];
  const t = read.retention;
  if (t) {
    const back =
      t.oldest !== null ? `the tenant's logs reached back to ${when(t.oldest)}` : 'the tenant had no events';
    lines.push(
      `Tenant: ${plural(t.pages, 'request')}; ${back}${t.capped ? `; stopped at the cap of ${number(t.cap)} events (--max-events)` : ''}.`,
    );
  }
  lines.push('Counts are a lower bound: logs record outcomes, not every request (docs/simulate.md).');
  return lines;
}

const SKIP_WORDS: Record<string, string> = {
  'no-type': 'no type',
  'no-date': 'no date',
  'bad-date': 'a date that is no date',
  'no-client': 'no client_id',
  'before-since': 'before --since',
};

export function renderSimulateText(report: SimulationReport, read: ReadSummary): string {
  const sections = [headline(report, read).join('\n')];
  for (const r of report.policies) sections.push(policyText(r).join('\n'));
  if (report.unlimited.length > 0) {
    sections.push(
      [
        "No policy (only the tenant's own rate limit):",
        ...report.unlimited.flatMap((a) => appText(a, null)),
      ].join('\n'),
    );
  }
  return sections.join('\n\n') + '\n';
}

/**
 * A Mermaid xychart-beta of an application's busiest minute per step of the
 * window (bars), with the limit per minute (limit × 60) as a line.
 */
export function chart(
  title: string,
  report: SimulationReport,
  series: readonly number[],
  limit: number,
): string {
  const w = report.window;
  const minutes = w.points * w.stepMinutes;
  const hours = (minutes / 60).toFixed(minutes >= 600 ? 0 : 1);
  const top = Math.max(limit * 60, ...series);
  return [
    `Requests per minute (the busiest minute of each ${plural(w.stepMinutes, 'minute')}); the line is the limit, ${number(limit)}/s = ${number(limit * 60)}/min:`,
    '',
    '```mermaid',
    'xychart-beta',
    `    title "${title.replace(/["\\]/g, "'")}"`,
    `    x-axis "hours from ${when(w.from!, true)}" 0 --> ${hours}`,
    `    y-axis "requests per minute" 0 --> ${Math.ceil(top * 1.1)}`,
    `    bar [${series.join(', ')}]`,
    `    line [${series.map(() => limit * 60).join(', ')}]`,
    '```',
  ].join('\n');
}

function appRow(a: ApplicationResult, r: PolicyResult): string {
  const cells = [
    escapeCell(printable(a.name ?? '')) || '–',
    codeCell(printable(a.clientId)),
    number(a.requests),
    a.peakSecond ? `${number(a.peakSecond.requests)}/s` : '–',
    number(a.secondsOver),
    isEnforcing(r.policy.configuration) ? number(a.turnedAway) : '–',
    r.limit !== null && !isEnforcing(r.policy.configuration) ? number(a.logged) : '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

function policyMarkdown(r: PolicyResult, report: SimulationReport): string[] {
  const out = [`### ${codeCell(r.policy.selector)}: ${escapeCell(actionWords(r.policy.configuration))}`, ''];
  if (r.applications.length === 0)
    return [...out, 'No requests of the applications it governs in the window.', ''];
  out.push(
    `${number(r.requests)} requests, peak ${escapeCell(peakWords(r.peakSecond, 's'))}, peak minute ${escapeCell(peakWords(r.peakMinute, 'min'))}; ${escapeCell(effectWords(r, r.limit, isEnforcing(r.policy.configuration)))}.`,
  );
  const suggest = suggestWords(r);
  if (suggest) out.push('', `Suggested limit: **${escapeCell(suggest)}**.`);
  out.push(
    '',
    '| application | client id | requests | peak | seconds over | turned away | logged |',
    '|---|---|--:|--:|--:|--:|--:|',
    ...r.applications.map((a) => appRow(a, r)),
    '',
  );
  for (const a of r.applications) {
    if (r.limit === null || a.secondsOver === 0) continue;
    out.push(
      chart(
        `${printable(a.name ?? a.clientId)} under ${actionShort(r.policy.configuration)}`,
        report,
        a.series,
        r.limit,
      ),
      '',
    );
  }
  return out;
}

export function renderSimulateMarkdown(report: SimulationReport, read: ReadSummary): string {
  const out = [
    '## Simulated rate limit policies',
    '',
    ...headline(report, read).flatMap((l) => [escapeCell(l), '']),
  ];
  for (const r of report.policies) out.push(...policyMarkdown(r, report));
  if (report.unlimited.length > 0) {
    out.push(
      '### No policy',
      '',
      ...report.unlimited.map(
        (a) =>
          `- ${codeCell(printable(a.clientId))}: ${number(a.requests)} requests, peak ${escapeCell(peakWords(a.peakSecond, 's'))}`,
      ),
      '',
    );
  }
  return out.join('\n');
}

const iso = (p: Peak | null) =>
  p ? { requests: p.requests, at: new Date(p.at * 1000).toISOString() } : null;

function effectJson(e: Effect): Record<string, unknown> {
  return {
    requests: e.requests,
    peak_second: iso(e.peakSecond),
    peak_minute: iso(e.peakMinute),
    seconds_over: e.secondsOver,
    turned_away: e.turnedAway,
    logged: e.logged,
    series: e.series,
  };
}

function appJson(a: ApplicationResult): Record<string, unknown> {
  return {
    client_id: a.clientId,
    ...(a.name !== undefined ? { name: a.name } : {}),
    level: a.level,
    ...effectJson(a),
    api_limit_events: a.limitNotices,
  };
}

export function renderSimulateJson(report: SimulationReport, read: ReadSummary): string {
  const w = report.window;
  const doc = {
    source: read.source,
    ...(read.retention
      ? {
          tenant: {
            oldest:
              read.retention.oldest !== null ? new Date(read.retention.oldest * 1000).toISOString() : null,
            capped: read.retention.capped,
            cap: read.retention.cap,
            requests: read.retention.pages,
          },
        }
      : {}),
    window: {
      from: w.from !== null ? new Date(w.from * 1000).toISOString() : null,
      to: w.to !== null ? new Date(w.to * 1000).toISOString() : null,
      step_minutes: w.stepMinutes,
    },
    read: {
      events: report.read.records,
      requests: report.read.requests,
      api_limit_events: report.read.limitNotices,
      skipped: Object.fromEntries(
        Object.entries(report.read.skipped).map(([k, n]) => [k.replace(/-/g, '_'), n]),
      ),
    },
    policies: report.policies.map((r) => ({
      selector: r.policy.selector,
      address: r.policy.address,
      source: r.policy.source
        ? { file: r.policy.source.file, line: r.policy.source.line, col: r.policy.source.col }
        : null,
      configuration: r.policy.configuration,
      counter: r.counter,
      ...effectJson(r),
      suggested_limit: r.suggested,
      applications: r.applications.map(appJson),
    })),
    unlimited: report.unlimited.map(appJson),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

export function renderSimulate(report: SimulationReport, read: ReadSummary, format: SimulateFormat): string {
  if (format === 'json') return renderSimulateJson(report, read);
  if (format === 'markdown') return renderSimulateMarkdown(report, read);
  return renderSimulateText(report, read);
}
