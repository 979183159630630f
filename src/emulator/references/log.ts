/**
 * The tenant's log events (API profile full): GET /logs, as the service's
 * "Retrieve Log Events Using the Management API" and the SDK's
 * ListLogsRequestParameters describe it. A fresh tenant has none; they come
 * from a seed's `logs` part (the CLI's `emulator --logs FILE` and
 * `--traffic SHAPE` put them there), PUT /__emulator/state or a data file.
 *
 * - By checkpoint (`from` given): the events whose log_id sorts after
 *   `from`, in log_id order, at most `take` (1 to 100; 50 unless asked), as
 *   a bare array; an empty array when none is newer. Other parameters are
 *   ignored, as the docs say.
 * - By search: `sort` (`date:1` oldest first, `date:-1` newest first, the
 *   default), `page` and `per_page` (1 to 100, 50 unless asked), at most the
 *   first 1,000 results (the docs' limit: a page beyond is a 400),
 *   `include_totals=true` for `{start, limit, length, total, logs}`; `q`
 *   only as a date range, `date:[A TO B]` (`{}` for exclusive bounds, `*`
 *   for open). Choices, where the docs are silent: other queries are a 400;
 *   `fields` is ignored; no Link header.
 * An event without log_id is given one when seeded: digits, ordered as the
 * events' dates and then their order in the seed.
 */
import { logEvent } from '../../resources/index.js';
import { isRecord, emulatorKind, type KindData } from '../kinds/kind.js';
import { invalid, single, wholeNumber, flag } from '../pages.js';

/** One event, as listed: log_id and whatever else it was given (date, type, client_id, …). */
export interface TenantLogEvent {
  log_id: string;
  date?: string;
  [field: string]: unknown;
}

/** The most results a search pages through. */
const SEARCH_LIMIT = 1000;

const timeOf = (e: TenantLogEvent) => (typeof e.date === 'string' ? Date.parse(e.date) : NaN);

/** A tenant's events, in log_id order, and by date for searches. */
export class LogData implements KindData<TenantLogEvent[]> {
  private events: TenantLogEvent[] = [];
  private byDate: TenantLogEvent[] | null = null;

  snapshot(): TenantLogEvent[] {
    return this.events.map((e) => ({ ...e }));
  }

  load(part: TenantLogEvent[]): void {
    this.events = part
      .map((e) => ({ ...e }))
      .sort((a, b) => (a.log_id < b.log_id ? -1 : a.log_id > b.log_id ? 1 : 0));
    this.byDate = null;
  }

  /** At most `take` events after the log_id `from`. */
  after(from: string, take: number): TenantLogEvent[] {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.log_id <= from) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo, lo + take).map((e) => ({ ...e }));
  }

  /** The events within [from, to] by date (undated ones last), oldest first. */
  dated(from: number, to: number): TenantLogEvent[] {
    this.byDate ??= [...this.events].sort((a, b) => (timeOf(a) || Infinity) - (timeOf(b) || Infinity));
    return this.byDate.filter((e) => {
      const t = timeOf(e);
      return Number.isNaN(t) ? from === -Infinity && to === Infinity : t >= from && t <= to;
    });
  }
}

/** The date range of `q`, as bounds in ms (inclusive); the whole log when absent. */
function dateRange(q: string | undefined): [number, number] {
  if (q === undefined || q.trim() === '') return [-Infinity, Infinity];
  const m = /^date:([[{])\s*(\S+)\s+TO\s+(\S+)\s*([\]}])$/.exec(q.trim());
  const bound = (text: string, open: number) => (text === '*' ? open : Date.parse(text));
  const from = m ? bound(m[2]!, -Infinity) : NaN;
  const to = m ? bound(m[3]!, Infinity) : NaN;
  if (Number.isNaN(from) || Number.isNaN(to)) {
    throw invalid(`q: only a date range such as date:[2026-11-20T00:00:00Z TO *] is emulated (got "${q}")`);
  }
  return [m![1] === '{' ? from + 1 : from, m![4] === '}' ? to - 1 : to];
}

function search(data: LogData, query: URLSearchParams): unknown {
  const perPage = wholeNumber(query, 'per_page', 1, 100, 50);
  const page = wholeNumber(query, 'page', 0, Number.MAX_SAFE_INTEGER, 0);
  if (page * perPage >= SEARCH_LIMIT) {
    throw invalid(
      `a search reads at most its first ${SEARCH_LIMIT} results; read on by checkpoint (from, take)`,
    );
  }
  const sort = single(query, 'sort') ?? 'date:-1';
  if (sort !== 'date:1' && sort !== 'date:-1')
    throw invalid(`sort: only date:1 and date:-1 are emulated (got "${sort}")`);
  const [from, to] = dateRange(single(query, 'q'));
  const found = data.dated(from, to);
  const ordered = sort === 'date:1' ? found : [...found].reverse();
  const total = Math.min(ordered.length, SEARCH_LIMIT);
  const start = page * perPage;
  const logs = ordered.slice(start, Math.min(start + perPage, total)).map((e) => ({ ...e }));
  return flag(query, 'include_totals') ? { start, limit: perPage, length: logs.length, total, logs } : logs;
}

/** A log_id for an event without one: its date's milliseconds, then its place, as digits. */
function logId(event: Record<string, unknown>, index: number, nowMs: number): string {
  const t =
    typeof event.date === 'string' && !Number.isNaN(Date.parse(event.date)) ? Date.parse(event.date) : nowMs;
  return `900${String(t).padStart(16, '0')}${String(index).padStart(10, '0')}`;
}

export const logs = emulatorKind({
  kind: logEvent,
  key: 'logs',
  shape: 'list',
  empty: (): TenantLogEvent[] => [],
  // A fresh tenant has no events, and a data file written before the logs were served may leave them out.
  defaults: (): TenantLogEvent[] => [],
  open: () => new LogData(),
  handlers: {
    listLogs: (data, { query }) => {
      const from = single(query, 'from');
      if (from === undefined) return { status: 200, body: search(data, query) };
      return { status: 200, body: data.after(from, wholeNumber(query, 'take', 1, 100, 50)) };
    },
  },
  sources: [
    {
      operations: ['listLogs'],
      facts: [
        [
          'checkpoint (`from`, `take` at most 100): a bare array ordered by `log_id`, empty at the end; search (`q`, `sort`, `page`, `per_page` at most 100, 1,000 results at most), `include_totals` answering `{start, limit, length, total, logs}`',
          'docs, SDK',
        ],
        [
          'only a date range in `q` (another query is a 400), only `date:1` and `date:-1` in `sort`; `fields` ignored; no `Link` header; the page past the 1,000th result is a 400',
          'choice',
        ],
      ],
    },
  ],
  check: (part) => {
    if (!Array.isArray(part)) return 'logs must be a list';
    const seen = new Set<string>();
    for (const e of part) {
      if (!isRecord(e) || typeof e.log_id !== 'string' || e.log_id === '')
        return 'logs: an event has no log_id';
      if (seen.has(e.log_id)) return `logs: ${JSON.stringify(e.log_id)} is listed twice`;
      seen.add(e.log_id);
    }
    return undefined;
  },
  complete: (part, nowIso) => {
    if (!Array.isArray(part)) return part;
    const now = Date.parse(nowIso);
    return part.map((e: unknown, i) =>
      isRecord(e) && e.log_id === undefined ? { ...e, log_id: logId(e, i, now) } : e,
    );
  },
});
