/**
 * tenantform explain [PATH...] [--client ID]... [--policy ADDRESS|SELECTOR]... [--format text|markdown|json]
 *
 * Offline, from the configuration alone: for each --client, the rate limit
 * policy that governs it by the documented precedence (its own client_id:
 * policy, else its group's — the group from the id's form — else default),
 * what that policy does and whose counter the requests count against; for
 * each --policy, the applications it governs (the --client ids among them,
 * and in words the group or the rest it names). With neither, every policy.
 * Reads no state, sends no request (but --all-clients's reads). Exit codes: 0; 1 for a config problem or
 * a --policy the configuration does not declare.
 *
 * With --all-clients (API profile full) it reads the tenant's applications
 * (GET /clients, paged, with their names) and explains every one of them,
 * and for every policy which of them it governs: the whole map.
 */
import { closestMatch } from '../../plan/index.js';
import { client, parseAddress, rateLimitPolicy, type ReferenceList } from '../../resources/index.js';
import {
  explainClients,
  policiesOf,
  reachOf,
  type Application,
  type PolicyEntry,
} from '../../review/index.js';
import type { ExplainFlags } from '../definitions.js';
import { renderExplain, type ExplainReport } from '../explain-output.js';
import { loadDesiredOrReport } from '../inputs.js';
import { CliError, type CommandIO } from '../io.js';
import type { ConfigInput } from '../../run/requests.js';
import type { ExplainRequest, TenantReader } from '../../run/read-requests.js';
import { runIO } from '../context.js';
import { parseExplainRequest } from '../read-requests.js';
import { plural } from '../words.js';

export { clientIdsOf } from '../read-requests.js';

/** The policy a --policy value names: an address of a rate limit policy, or a consumer_selector. */
export function findPolicy(text: string, policies: readonly PolicyEntry[]): PolicyEntry {
  let selector = text;
  if (text.includes('[')) {
    const parsed = parseAddress(text);
    if (parsed.kind !== rateLimitPolicy.name) {
      throw new CliError(`--policy ${text}: not a ${rateLimitPolicy.title.one}`);
    }
    selector = parsed.identity[rateLimitPolicy.identityFields.indexOf('consumer_selector')]!;
  }
  const found = policies.find((p) => p.selector === selector);
  if (found) return found;
  const best = closestMatch(
    selector,
    policies.map((p) => p.selector),
  );
  const hint = best ? ` (did you mean ${best}?)` : policies.length === 0 ? ' (it declares none)' : '';
  throw new CliError(
    `--policy ${text}: the configuration declares no rate limit policy for ${selector}${hint}`,
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

/** Runs `tenantform explain`; returns the exit code. */
export async function explainAction(
  paths: string[],
  flags: ExplainFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runExplain(parseExplainRequest(paths, flags, io), io);
}

/** Runs an explain request: the report printed; the exit code. */
async function runExplain(request: ExplainRequest, io: CommandIO): Promise<number> {
  const { input, allClients } = request;
  const desired = await loadDesiredOrReport(
    input.paths,
    { vars: request.vars, varFiles: input.varFiles },
    io,
  );
  if (!desired) return 1;
  const policies = policiesOf(desired);
  const given: Application[] = request.clients.map((client_id) => ({ client_id }));
  const asked =
    request.policies.length > 0
      ? request.policies.map((text) => findPolicy(text, policies))
      : request.clients.length > 0 && !allClients
        ? []
        : policies;
  const applications = allClients ? await tenantApplications(allClients, input, given, io) : given;
  const report = {
    ...explainReport(policies, applications, asked),
    ...(allClients ? { from: 'tenant' as const } : {}),
  };
  io.stdout.write(renderExplain(report, request.output.format, applications.length > 0));
  return 0;
}

/**
 * --all-clients: every application of the tenant (API profile full), read
 * through the client list with its names, then the --client ids it does not
 * have. Says on stderr what it read, so that stdout stays the report.
 */
async function tenantApplications(
  reader: TenantReader,
  input: ConfigInput,
  given: readonly Application[],
  io: CommandIO,
): Promise<Application[]> {
  const live = await import('../tenant-read.js');
  live.requireFull(reader.api, 'explain --all-clients');
  const api = await import('../../api/index.js');
  const { openClient } = await import('../../run/connection.js');
  const clientList: ReferenceList = client;
  const connection = await openClient(reader.connection, input, runIO(io));
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
  io.stderr.write(
    `Read ${plural(found.length, clientList.title)} from the tenant in ${plural(read.pages, 'request')}.\n`,
  );
  const known = new Set(found.map((a) => a.client_id));
  return [...found, ...given.filter((a) => !known.has(a.client_id))];
}
