/**
 * `explain` below the command line: the request run, the report returned as
 * data (src/cli renders it as text, Markdown or JSON). Offline from the
 * config, but for the tenant's applications when the request reads them.
 */
import type { ConfigIssue } from '../config/index.js';
import { closestMatch } from '../plan/index.js';
import { client, parseAddress, rateLimitPolicy, type ReferenceList } from '../resources/index.js';
import {
  explainClients,
  policiesOf,
  reachOf,
  type Application,
  type ClientExplanation,
  type PolicyEntry,
  type PolicyReach,
} from '../review/index.js';
import { RunError } from './errors.js';
import type { ExplainRequest, TenantReader } from './read-requests.js';
import type { ConfigInput, RunIO } from './requests.js';
import { loadInputConfig } from './load-config.js';

/** What one run of explain found. */
export interface ExplainReport {
  /** The applications asked about (or read from the tenant), each with what governs it. */
  clients: ClientExplanation[];
  /** The policies asked about (or every policy), each with what it governs. */
  policies: PolicyReach[];
  /** 'tenant' when the applications are the tenant's (all of them read); else they were given. */
  from?: 'tenant';
}

/** What an explain request gives: the config's problems, or the report and what was read for it. */
export type ExplainResult =
  | { kind: 'config-issues'; issues: readonly ConfigIssue[] }
  | {
      kind: 'report';
      report: ExplainReport;
      /** How many applications the report covers. */
      applications: number;
      /** The tenant's applications read: how many, in how many requests; null when none were read. */
      read: { found: number; requests: number } | null;
    };

/** The policy a value names: an address of a rate limit policy, or a consumer_selector. */
export function findPolicy(text: string, policies: readonly PolicyEntry[]): PolicyEntry {
  let selector = text;
  if (text.includes('[')) {
    const parsed = parseAddress(text);
    if (parsed.kind !== rateLimitPolicy.name) {
      throw new RunError(
        { code: 'POLICY_NOT_A_POLICY', text },
        `${text}: not a ${rateLimitPolicy.title.one}`,
      );
    }
    selector = parsed.identity[rateLimitPolicy.identityFields.indexOf('consumer_selector')]!;
  }
  const found = policies.find((p) => p.selector === selector);
  if (found) return found;
  const closest = closestMatch(
    selector,
    policies.map((p) => p.selector),
  );
  throw new RunError(
    { code: 'POLICY_NOT_DECLARED', text, selector, closest, declared: policies.length },
    `${text}: the configuration declares no rate limit policy for ${selector}`,
  );
}

/**
 * The report for the policies and the applications given. A client_id:
 * policy always knows its own application, so its reach names it.
 */
export function explainReport(
  policies: readonly PolicyEntry[],
  applications: readonly Application[],
  asked: readonly PolicyEntry[],
): ExplainReport {
  const reaches = asked.map((policy) => {
    const own = policy.scope.level === 'client' ? policy.scope.clientId : null;
    const known =
      own !== null && !applications.some((a) => a.client_id === own)
        ? [...applications, { client_id: own }]
        : applications;
    return reachOf(policy, policies, known);
  });
  return { clients: explainClients(policies, applications), policies: reaches };
}

/** Every application of the tenant, read through the client list with its names. */
async function tenantApplications(
  reader: TenantReader,
  input: ConfigInput,
  io: RunIO,
): Promise<{ found: Application[]; requests: number }> {
  const api = await import('../api/index.js');
  const { openClient } = await import('./connection.js');
  const clientList: ReferenceList = client;
  const connection = await openClient(reader.connection, input, io);
  let read;
  try {
    read = await api.readReferences(connection.call, [
      { list: clientList, queries: clientList.queries(null) },
    ]);
  } finally {
    await connection.close();
  }
  const found: Application[] = (read.items[clientList.name] ?? []).map((item) => ({
    client_id: item.key,
    ...(item.name !== undefined ? { name: item.name } : {}),
    ...(item.attributes as Pick<Application, 'app_type' | 'is_first_party'>),
  }));
  return { found, requests: read.pages };
}

/**
 * Runs an explain request: the config loaded, the policies asked about
 * found (a RunError for one the config does not declare), the tenant's
 * applications read when asked (then the clients given it does not have).
 */
export async function runExplain(request: ExplainRequest, io: RunIO): Promise<ExplainResult> {
  const { input, allClients } = request;
  const loaded = await loadInputConfig(input, request.vars, io);
  if (loaded.issues.length > 0) return { kind: 'config-issues', issues: loaded.issues };
  const policies = policiesOf(loaded.desired);
  const given: Application[] = request.clients.map((client_id) => ({ client_id }));
  const asked =
    request.policies.length > 0
      ? request.policies.map((text) => findPolicy(text, policies))
      : request.clients.length > 0 && !allClients
        ? []
        : policies;
  let applications = given;
  let read = null;
  if (allClients) {
    if (allClients.api !== 'full')
      throw new RunError(
        { code: 'READ_NEEDS_FULL', read: 'all-clients' },
        "reading the tenant's applications needs the full API profile",
      );
    const tenant = await tenantApplications(allClients, input, io);
    const known = new Set(tenant.found.map((a) => a.client_id));
    applications = [...tenant.found, ...given.filter((a) => !known.has(a.client_id))];
    read = { found: tenant.found.length, requests: tenant.requests };
  }
  const report = {
    ...explainReport(policies, applications, asked),
    ...(allClients ? { from: 'tenant' as const } : {}),
  };
  return { kind: 'report', report, applications: applications.length, read };
}
