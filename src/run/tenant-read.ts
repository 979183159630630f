/**
 * The live read behind refresh, plan and apply with a refresh, export and
 * import without an id (API profile full): which users to read, the read
 * itself through one API client (its pacer shared with whatever else that
 * client sends), whether the config's references hold against what was
 * read, and the lookup a 409 on create uses. Plan stays pure: it gets the
 * result as data.
 */
import type { ApiClient, TenantRead } from '../api/index.js';
import type { ConfigIssue } from '../config/index.js';
import type { ExecutorClient } from '../apply/index.js';
import {
  kindOf,
  KINDS,
  operationsFor,
  readPer,
  REFERENCE_LISTS,
  type Attributes,
  type DesiredResource,
  type KindName,
  type ReferenceRead,
} from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import type { RunView } from './view.js';

/**
 * The values of the list paths' parameters a read covers: for a kind listed
 * per owner (a user's permissions, `{user_id}`), every value of that
 * attribute the config or the state names, sorted, once each.
 */
export function listParams(
  desired: readonly DesiredResource[],
  doc: StateDocument | null,
): Record<string, string[]> {
  const values: Record<string, Set<string>> = {};
  for (const kind of KINDS) {
    for (const name of readPer(kind)) {
      const seen = (values[name] ??= new Set());
      for (const r of [...desired, ...(doc?.resources ?? [])])
        if (r.kind === kind.name) seen.add(String(r.attributes[name]));
    }
  }
  return Object.fromEntries(Object.entries(values).map(([name, seen]) => [name, [...seen].sort()]));
}

/**
 * Reads every list the full profile has: each kind's, per value of its path
 * parameters (`values`), and the reference lists `desired` refers to (its
 * applications, Actions and APIs), all through the one client.
 */
export async function readLive(
  client: Pick<ApiClient, 'call'>,
  values: Readonly<Record<string, readonly string[]>>,
  parallelism: number,
  desired: readonly DesiredResource[] = [],
): Promise<TenantRead> {
  const api = await import('../api/index.js');
  const { referenceQueries } = await import('../plan/references.js');
  return api.readTenant(client.call, {
    listOf: (kind) => operationsFor(kind, 'full').list,
    values,
    references: referenceQueries(desired),
    concurrency: readConcurrency(parallelism),
    // A list the token may not read leaves its references unchecked (uncheckedLists), not the run failed.
    skipDenied: true,
  });
}

/** Lists read at once: the run's parallelism, at most 8. */
export function readConcurrency(parallelism: number): number {
  return Math.max(1, Math.min(parallelism, 8));
}

/**
 * Each reference of `desired` that names nothing the read found (an unknown
 * client id, an Action not bound to custom-token-exchange, an API or
 * permission the tenant lacks), as a config problem at its file:line:col.
 */
export async function referenceIssues(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
): Promise<ConfigIssue[]> {
  const { checkReferences } = await import('../plan/references.js');
  return checkReferences(desired, references).map((p) => ({
    file: p.source?.file ?? '',
    line: p.source?.line ?? 0,
    col: p.source?.col ?? 0,
    message: p.source ? p.message : `${p.address}: ${p.message}`,
    code: p.code,
  }));
}

/**
 * The config's references against `references`: those naming what the read
 * did not find (`missing`), and whether they hold: none is missing, and
 * under `strict` no reference list went unread for want of its scope (403).
 */
export async function checkReferencesRead(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
  strict: boolean,
): Promise<{ missing: ConfigIssue[]; holds: boolean }> {
  const denied = references.denied ?? {};
  const unchecked = REFERENCE_LISTS.filter((l) => denied[l.name] !== undefined).length;
  const missing = await referenceIssues(desired, references);
  return { missing, holds: missing.length === 0 && !(strict && unchecked > 0) };
}

/** The executor's client with the 409 lookup of the full profile (by the kind's list, filtered by identity where it can be). */
export async function readingClient(client: ApiClient): Promise<ExecutorClient> {
  const api = await import('../api/index.js');
  return {
    call: client.call,
    lookup: async (kindName: KindName, attributes: Attributes) => {
      const kind = kindOf(kindName);
      const list = operationsFor(kind, 'full').list;
      if (!list) return null;
      const { found } = await api.findLive(client.call, kind, list, attributes);
      return found ? { id: found.id, attributes: found.attributes } : null;
    },
  };
}

/**
 * Checks the config's references against `references` and tells the view
 * (a 'references' event); true when they hold.
 */
export async function referencesHold(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
  strict: boolean,
  view: Pick<RunView, 'event'>,
): Promise<boolean> {
  const checked = await checkReferencesRead(desired, references, strict);
  view.event({ kind: 'references', desired, references, strict, ...checked });
  return checked.holds;
}
