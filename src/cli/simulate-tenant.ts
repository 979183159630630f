/**
 * `simulate --logs tenant` (API profile full): the tenant's log events read
 * through GET /api/v2/logs with the one API client, so paced, retried and
 * checked like every other read. A search finds where to start (the oldest
 * event the tenant keeps: how far back its retention reaches; with --since,
 * the first event from then on), then the checkpoint reads on, `from` the
 * last log_id read and `take` 100, until a page comes back short or
 * --max-events events are read.
 */
import { logEvent, type OperationDescriptor } from '../resources/index.js';
import type { ApiClient, Query } from '../api/index.js';
import type { ConfigInput } from '../run/requests.js';
import type { TenantReader } from '../run/read-requests.js';
import { runIO } from './context.js';
import { CliError, type CommandIO } from './io.js';
import type { ReadSummary } from './simulate-output.js';
import { requireFull } from './tenant-read.js';

export type { TenantReader };

type Event = Record<string, unknown>;
type Call = ApiClient['call'];

const TAKE = 100;

async function page(call: Call, op: OperationDescriptor, query: Query): Promise<Event[]> {
  const answer = await call(op, {}, undefined, query);
  if (answer.outcome !== 'done') throw new CliError(`GET /logs answered ${answer.status}`);
  const body = answer.body as Event[] | { logs: Event[] };
  return Array.isArray(body) ? body : body.logs;
}

const seconds = (event: Event | undefined): number | null => {
  const t = typeof event?.date === 'string' ? Date.parse(event.date) : NaN;
  return Number.isNaN(t) ? null : Math.floor(t / 1000);
};

/** The first event to read: the oldest kept, or the first from `since` on; and the oldest kept. */
async function start(call: Call, op: OperationDescriptor, since: number | null) {
  const oldest = (await page(call, op, { sort: 'date:1', per_page: 1, page: 0 }))[0];
  const at = seconds(oldest);
  if (!oldest || since === null || (at !== null && at * 1000 >= since))
    return { oldest, first: oldest, pages: 1 };
  const q = `date:[${new Date(since).toISOString()} TO *]`;
  const first = (await page(call, op, { q, sort: 'date:1', per_page: 1, page: 0 }))[0];
  return { oldest, first, pages: 2 };
}

/** Reads the tenant's events (from `since`, ms, when given; at most `cap`) into `sink`; says what it read. */
export async function readTenantLogs(
  what: string,
  reader: TenantReader,
  input: ConfigInput,
  io: CommandIO,
  { since, cap }: { since: number | null; cap: number },
  sink: (record: Event) => void,
): Promise<ReadSummary> {
  requireFull(reader.api, what);
  const run = await import('../run/connection.js');
  const target = await run.readTarget(reader.connection, input, runIO(io));
  const client = await run.openClient(reader.connection, input, runIO(io), { parallelism: 1 });
  const op = logEvent.operations.list;
  try {
    const found = await start(client.call, op, since);
    let pages = found.pages;
    let read = 0;
    let capped = false;
    let from = found.first?.log_id;
    if (found.first) {
      sink(found.first);
      read++;
    }
    while (typeof from === 'string') {
      if (read >= cap) {
        capped = true;
        break;
      }
      const take = Math.min(TAKE, cap - read);
      const items = await page(client.call, op, { from, take });
      pages++;
      for (const item of items) sink(item);
      read += items.length;
      if (items.length < take) break;
      from = items.at(-1)!.log_id;
      if (typeof from !== 'string')
        throw new CliError('GET /logs answered an event without log_id: cannot read on');
    }
    return {
      source: `${target.baseUrl}/logs`,
      retention: { oldest: seconds(found.oldest), capped, cap, pages },
    };
  } finally {
    await client.close();
  }
}
