/**
 * `simulate` below the command line, and the log events plan's simulation
 * reads: events from files (src/simulate's sources) or, from `tenant` (API
 * profile full), through GET /api/v2/logs with the one API client, so paced,
 * retried and checked like every other read. A search finds where to start
 * (the oldest event the tenant keeps: how far back its retention reaches;
 * with a start time, the first event from then on), then the checkpoint
 * reads on, `from` the last log_id read and `take` 100, until a page comes
 * back short or the cap is reached. Problems are RunErrors with data.
 */
import type { ApiClient, Query } from '../api/index.js';
import type { ConfigIssue } from '../config/index.js';
import { logEvent, type OperationDescriptor } from '../resources/index.js';
import type { Simulation, SimulationReport } from '../simulate/index.js';
import { RunError } from './errors.js';
import type { SimulateRequest, TenantReader } from './read-requests.js';
import type { ConfigInput, RunIO } from './requests.js';
import { absolute } from './state-store.js';
import { loadInputConfig } from './load-config.js';

/** What was read: the source, and for the tenant how far back its logs reached. */
export interface ReadSummary {
  /** The files read, or the tenant's base URL. */
  source: string;
  /** Tenant reads: how far back the tenant's retention reached, and whether the cap stopped the read. */
  retention?: { oldest: number | null; capped: boolean; cap: number; pages: number };
}

/** How much of the tenant's logs to read. */
export interface ReadLimits {
  /** Only events from then on (ms since the epoch). */
  since: number | null;
  /** At most this many events from the tenant. */
  cap: number;
}

/** Which command reads the events (its problems name its own setting). */
export type LogReader = 'simulate' | 'plan';

type Event = Record<string, unknown>;
type Call = ApiClient['call'];

const TAKE = 100;

async function page(call: Call, op: OperationDescriptor, query: Query): Promise<Event[]> {
  const answer = await call(op, {}, undefined, query);
  if (answer.outcome !== 'done')
    throw new RunError(
      { code: 'LOGS_READ_STOPPED', status: answer.status },
      `GET /logs answered ${answer.status}`,
    );
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

/** Reads from the checkpoint `from` on into `sink` until a short page or the cap; pages and events read, and whether capped. */
async function readOn(
  call: Call,
  op: OperationDescriptor,
  from: unknown,
  cap: number,
  sink: (e: Event) => void,
) {
  let pages = 0;
  let read = 0;
  let capped = false;
  while (typeof from === 'string') {
    if (read >= cap) {
      capped = true;
      break;
    }
    const take = Math.min(TAKE, cap - read);
    const items = await page(call, op, { from, take });
    pages++;
    for (const item of items) sink(item);
    read += items.length;
    if (items.length < take) break;
    from = items.at(-1)!.log_id;
    if (typeof from !== 'string')
      throw new RunError(
        { code: 'LOGS_READ_STOPPED', status: null },
        'GET /logs answered an event without log_id: cannot read on',
      );
  }
  return { pages, capped };
}

/** Reads the tenant's events (from `since`, ms, when given; at most `cap`) into `sink`; says what it read. */
async function readTenantLogs(
  via: LogReader,
  reader: TenantReader,
  input: ConfigInput,
  io: RunIO,
  { since, cap }: ReadLimits,
  sink: (record: Event) => void,
): Promise<ReadSummary> {
  if (reader.api !== 'full')
    throw new RunError(
      { code: 'READ_NEEDS_FULL', read: `${via}-tenant-logs` },
      'the tenant logs need the full API profile',
    );
  const run = await import('./connection.js');
  const target = await run.readTarget(reader.connection, input, io);
  const client = await run.openClient(reader.connection, input, io, { parallelism: 1 });
  const op = logEvent.operations.list;
  try {
    const found = await start(client.call, op, since);
    if (found.first) sink(found.first);
    const on = await readOn(client.call, op, found.first?.log_id, cap - (found.first ? 1 : 0), sink);
    return {
      source: `${target.baseUrl}/logs`,
      retention: { oldest: seconds(found.oldest), capped: on.capped, cap, pages: found.pages + on.pages },
    };
  } finally {
    await client.close();
  }
}

/** Reads `source` (a file, a directory, or `tenant`) into `simulation`; says what it read. */
export async function readLogs(
  via: LogReader,
  source: string,
  simulation: Simulation,
  context: { reader: TenantReader; input: ConfigInput; io: RunIO; limits: ReadLimits },
): Promise<ReadSummary> {
  const { reader, input, io, limits } = context;
  const sink = (record: Record<string, unknown>) => simulation.add(record);
  if (source === 'tenant') return readTenantLogs(via, reader, input, io, limits, sink);
  const sim = await import('../simulate/index.js');
  const full = absolute(source, io);
  try {
    const files = await sim.readSource(full, sink);
    return { source: files.files.length === 1 ? source : `${source} (${files.files.length} files)` };
  } catch (err) {
    if (err instanceof sim.LogSourceError) {
      const message = err.message.replace(full, source);
      throw new RunError({ code: 'LOGS_UNREADABLE', via, message }, message);
    }
    throw err;
  }
}

/** What a simulate request gives: the config's problems, or the report and what was read for it. */
export type SimulateResult =
  | { kind: 'config-issues'; issues: readonly ConfigIssue[] }
  | { kind: 'report'; report: SimulationReport; read: ReadSummary };

/** Runs a simulate request: the config loaded, the events read and replayed against its policies. */
export async function runSimulate(request: SimulateRequest, io: RunIO): Promise<SimulateResult> {
  const { input, since } = request;
  const loaded = await loadInputConfig(input, request.vars, io);
  if (loaded.issues.length > 0) return { kind: 'config-issues', issues: loaded.issues };
  const { policiesOf } = await import('../review/index.js');
  const sim = await import('../simulate/index.js');
  const simulation = new sim.Simulation(since);
  const read = await readLogs('simulate', request.logs, simulation, {
    reader: request.reader,
    input,
    io,
    limits: { since, cap: request.maxEvents },
  });
  return { kind: 'report', report: simulation.report(policiesOf(loaded.desired)), read };
}
