/**
 * Reading the tenant (API profile full): every list operation of every kind,
 * to its last page, turned into a LiveSnapshot (src/resources) for the
 * planner to compare with the state. Costs pages, not resources: policies
 * and profiles are one list each; a user's permissions are one list per user,
 * and only the users asked for (those the config or the state names) are read.
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
} from '../resources/index.js';
import { readList, type ListCall } from './pages.js';

export interface ReadTenantOptions {
  /** The list operation of a kind under the tenant's API profile, or undefined when it has none. */
  listOf: (kind: Kind) => OperationDescriptor | undefined;
  /** Values of the list paths' parameters: { user_id: [the users whose permissions to read] }. */
  values: Readonly<Record<string, readonly string[]>>;
  /** Lists read at the same time (the client paces them all together). Default 4. */
  concurrency?: number;
  /** Items per page; default the most the service allows. */
  pageSize?: number;
}

export interface TenantRead extends LiveSnapshot {
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
  const jobs: (() => Promise<void>)[] = [];
  for (const kind of KINDS) {
    const op = options.listOf(kind);
    if (!op) continue;
    for (const params of combinations(pathParams(op.path), options.values)) {
      jobs.push(async () => {
        const read = await readList(call, op, params, {
          ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
        });
        pages += read.pages;
        reads.push({ kind: kind.name, params });
        resources.push(...toLive(kind, read.items, params));
      });
    }
  }
  await runLimited(jobs, options.concurrency ?? 4);
  const byAddress = (a: { address: string }, b: { address: string }) =>
    a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  resources.sort(byAddress);
  const readKey = (r: LiveRead) => `${r.kind}\u0000${JSON.stringify(r.params)}`;
  reads.sort((a, b) => byAddress({ address: readKey(a) }, { address: readKey(b) }));
  return { reads, resources, pages };
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
