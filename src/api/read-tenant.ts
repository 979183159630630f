/**
 * Reading the tenant (API profile full): every list operation of every kind,
 * to its last page, turned into a LiveSnapshot (src/resources) for the
 * planner to compare with the state, and the reference lists the config
 * refers to (its applications, Actions, APIs) for the reference checks.
 * Costs pages, not resources: policies and profiles are one list each; a
 * user's permissions are one list per user, and only the users asked for
 * (those the config or the state names) are read; a reference list is one
 * pass (the APIs: one per 10 identifiers the config names).
 */
import {
  KINDS,
  liveResource,
  pathParams,
  type Attributes,
  type Kind,
  type LiveRead,
  type LiveResource,
  type LiveSnapshot,
  type OperationDescriptor,
  type ReferenceItem,
  type ReferenceQuery,
  type ReferenceRead,
} from '../resources/index.js';
import { ApiError } from './errors.js';
import { readList, type ListCall } from './pages.js';

/** How the reference lists are read. */
export interface ReferenceReadOptions {
  /** Items per page; default the most the service allows. */
  pageSize?: number;
  /**
   * A list the tenant refuses to list (403) is named in the result's
   * `denied` instead of failing the read. Default false: the 403 rejects.
   */
  skipDenied?: boolean;
}

export interface ReadTenantOptions extends ReferenceReadOptions {
  /** The list operation of a kind under the tenant's API profile, or undefined when it has none. */
  listOf: (kind: Kind) => OperationDescriptor | undefined;
  /** Values of the list paths' parameters: { user_id: [the users whose permissions to read] }. */
  values: Readonly<Record<string, readonly string[]>>;
  /** Lists read at the same time (the client paces them all together). Default 4. */
  concurrency?: number;
  /** The reference lists to read besides, each with the query of each read. Default: none. */
  references?: readonly ReferenceQuery[];
}

export interface TenantRead extends LiveSnapshot {
  /** Requests sent (pages read). */
  pages: number;
  /** The reference lists read (empty when none was asked for). */
  references: ReferenceRead;
  /** Paged reads of reference lists, one per query. */
  referenceReads: number;
}

/** What readReferences found, and what it cost. */
export interface ReferencesRead extends ReferenceRead {
  /** Paged reads, one per query. */
  reads: number;
  /** Requests sent (pages read). */
  pages: number;
}

/** Every combination of the values of `names` (one list read each). */
function combinations(
  names: readonly string[],
  values: Readonly<Record<string, readonly string[]>>,
): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const name of names) {
    const options = values[name] ?? [];
    out = out.flatMap((partial) => options.map((value) => ({ ...partial, [name]: value })));
  }
  return out;
}

/** The resources of one list answer. */
function toLive(
  kind: Kind,
  items: readonly unknown[],
  params: Readonly<Record<string, string>>,
): LiveResource[] {
  return items.map((item) => {
    const { id, attributes } = kind.fromLive(item, params);
    return liveResource(kind.name, attributes, id);
  });
}

/** Runs `jobs` with at most `limit` at once; rejects with the first failure once the running ones settle. */
async function runLimited(jobs: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && failure === null) {
      const job = jobs[next++]!;
      try {
        await job();
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), jobs.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}

/**
 * Reads every kind that has a list operation: one read per combination of
 * its path parameters' values (permissions: per user). The snapshot names
 * each read, so that a recorded resource whose list was read but that is
 * missing counts as deleted, and one whose list was not read stays unknown.
 */
export async function readTenant(call: ListCall, options: ReadTenantOptions): Promise<TenantRead> {
  const reads: LiveRead[] = [];
  const resources: LiveResource[] = [];
  let pages = 0;
  const refs = referenceJobs(call, options.references ?? [], options);
  const jobs: (() => Promise<void>)[] = [...refs.jobs];
  for (const kind of KINDS) {
    const op = options.listOf(kind);
    if (!op) continue;
    for (const params of combinations(pathParams(op.path), options.values)) {
      jobs.push(async () => {
        const read = await readList(call, op, params, pageSizeOf(options));
        pages += read.pages;
        reads.push({ kind: kind.name, params });
        resources.push(...toLive(kind, read.items, params));
      });
    }
  }
  await runLimited(jobs, options.concurrency ?? 4);
  pages += refs.found.pages;
  const byAddress = (a: { address: string }, b: { address: string }) =>
    a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  resources.sort(byAddress);
  const readKey = (r: LiveRead) => `${r.kind}\u0000${JSON.stringify(r.params)}`;
  reads.sort((a, b) => byAddress({ address: readKey(a) }, { address: readKey(b) }));
  return { reads, resources, pages, references: refs.result(), referenceReads: refs.found.reads };
}

/**
 * One job per query of `queries`, each reading its list to the last page
 * into `found`. With `skipDenied`, a list the tenant refuses to list (403,
 * the token lacks its read scope) is left out of the result and named in
 * its `denied`, with that scope; every other failure rejects.
 */
function referenceJobs(
  call: ListCall,
  queries: readonly ReferenceQuery[],
  options: ReferenceReadOptions,
): { jobs: (() => Promise<void>)[]; found: ReferencesRead; result: () => ReferenceRead } {
  const items: Record<string, ReferenceItem[]> = {};
  const denied: Record<string, string> = {};
  const found: ReferencesRead = { items, reads: 0, pages: 0 };
  const jobs = queries.flatMap(({ list, queries: each }) => {
    items[list.name] = [];
    return each.map((filters) => async () => {
      let read;
      try {
        read = await readList(call, list.operations.list, {}, { filters, ...pageSizeOf(options) });
      } catch (err) {
        if (!(options.skipDenied && err instanceof ApiError && err.status === 403)) throw err;
        // The refused request was sent all the same.
        found.pages++;
        denied[list.name] = list.operations.list.scope;
        return;
      }
      found.reads++;
      found.pages += read.pages;
      items[list.name]!.push(...read.items.map((item) => list.fromLive(item)));
    });
  });
  const result = (): ReferenceRead => ({
    items: Object.fromEntries(
      Object.entries(items)
        .filter(([name]) => denied[name] === undefined)
        .map(([name, list]) => [name, [...list].sort((a, b) => compareKeys(a.key, b.key))]),
    ),
    ...(Object.keys(denied).length > 0 ? { denied: { ...denied } } : {}),
  });
  return { jobs, found, result };
}

function pageSizeOf(options: { pageSize?: number }): { pageSize?: number } {
  return options.pageSize !== undefined ? { pageSize: options.pageSize } : {};
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Reads the reference lists of `queries` (each query one paged read, at
 * most `concurrency` at once, all through `call` and so its pacer), items
 * sorted by key.
 */
export async function readReferences(
  call: ListCall,
  queries: readonly ReferenceQuery[],
  options: ReferenceReadOptions & { concurrency?: number } = {},
): Promise<ReferencesRead> {
  const refs = referenceJobs(call, queries, options);
  await runLimited(refs.jobs, options.concurrency ?? 4);
  return { ...refs.result(), reads: refs.found.reads, pages: refs.found.pages };
}

/**
 * The live resource of `kind` with the identity of `attributes`, or null when
 * the tenant has none: its list read with the identity fields the list can
 * filter by (`filters` of the list descriptor; policies: resource, consumer,
 * consumer_selector), and otherwise searched page by page.
 */
export async function findLive(
  call: ListCall,
  kind: Kind,
  list: OperationDescriptor,
  attributes: Attributes,
): Promise<{ found: LiveResource | null; pages: number }> {
  const params: Record<string, string> = {};
  for (const name of pathParams(list.path)) params[name] = String(attributes[name]);
  const filters: Record<string, string> = {};
  for (const name of list.filters ?? []) filters[name] = String(attributes[name]);
  const read = await readList(call, list, params, { filters });
  const want = liveResource(kind.name, attributes, null).address;
  const found = toLive(kind, read.items, params).find((r) => r.address === want) ?? null;
  return { found, pages: read.pages };
}
