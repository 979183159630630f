/**
 * The live read behind refresh, plan --refresh, apply --refresh, export and
 * import without an id (API profile full): which users to read, the read
 * itself through one API client (its pacer shared with whatever else that
 * client sends), the check of the config's references against what was
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
  referencedKeys,
  type ApiProfile,
  type Attributes,
  type DesiredResource,
  type KindName,
  type ReferenceRead,
} from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import { CliError, type CommandIO } from './io.js';
import { fullProfileNeeded } from './run-words.js';
import { listed, plural } from './words.js';

/** Refuses `what` under the spec profile, which has no read operation. */
export function requireFull(profile: ApiProfile, what: string): void {
  if (profile === 'full') return;
  throw new CliError(fullProfileNeeded(what));
}

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
 * One issue per reference list the tenant refused to list (403): its
 * references are not checked, for want of the list's read scope ("references
 * not checked: the token lacks read:clients …"). A warning, or an error
 * under --strict; no place in the config, code REFERENCES_NOT_CHECKED.
 */
export function uncheckedLists(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
): ConfigIssue[] {
  const denied = references.denied ?? {};
  return REFERENCE_LISTS.filter((l) => denied[l.name] !== undefined).map((list) => {
    const named = plural(referencedKeys(list.references(desired)).length, list.title);
    return {
      file: '',
      line: 0,
      col: 0,
      message: `references not checked: the token lacks ${denied[list.name]!} (403 listing the tenant's ${list.title.many}); the config's references to ${named} are unchecked`,
      code: 'REFERENCES_NOT_CHECKED',
    };
  });
}

/**
 * Prints the lists left unchecked (uncheckedLists: warnings, or errors
 * under `strict`) and referenceIssues, then "N errors."; true when there is
 * no error. Called after a read of the tenant and before anything is written.
 */
export async function referencesHold(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
  io: CommandIO,
  strict = false,
): Promise<boolean> {
  const unchecked = uncheckedLists(desired, references);
  const issues = [...(strict ? unchecked : []), ...(await referenceIssues(desired, references))];
  if (!strict && unchecked.length > 0) {
    const { reportWarnings } = await import('./guardrails.js');
    reportWarnings(unchecked, io);
  }
  if (issues.length === 0) return true;
  const { reportIssues } = await import('./config-issues.js');
  reportIssues(issues, io);
  return false;
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
 * "Read 3 lists from the tenant in 5 requests." for the line before a
 * refreshed plan; with reference lists, which were read to check the config's references.
 */
export function readSummary(read: TenantRead): string {
  const n = read.reads.length;
  const lists = `${n} list${n === 1 ? '' : 's'}`;
  const requests = `${read.pages} request${read.pages === 1 ? '' : 's'}`;
  const names = Object.keys(read.references.items);
  if (names.length === 0) return `Read ${lists} from the tenant in ${requests}.`;
  return `Read ${lists} from the tenant, and its ${referenceTitles(names)} to check the config's references, in ${requests}.`;
}

/** "applications, actions and APIs": the titles of the reference lists named, in REFERENCE_LISTS order. */
export function referenceTitles(names: readonly string[]): string {
  return listed(REFERENCE_LISTS.filter((l) => names.includes(l.name)).map((l) => l.title.many));
}
