/**
 * `tenantform export DIR --from-deploy-cli PATH`: an Auth0 Deploy CLI export
 * (its YAML file or its directory) as an ExportSource. The Deploy CLI keeps
 * no ids: under the API profile full they are looked up on the tenant (the
 * policy and profile lists, matched by identity; Actions named by name
 * resolved with the tenant's Actions), under spec the resources are recorded
 * without ids (as a 409 adopts them) and the command says which `import`
 * attaches one. Nothing is written when a problem is found.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, type CommandIO } from '../io.js';
import { absolute, runIO } from '../context.js';
import type { ConfigInput } from '../../run/requests.js';
import type { ExportRequest, ExportSourceRequest } from '../../run/read-requests.js';
import { reportIssues } from '../config-issues.js';
import type { PeerFound, PeerRead } from '../../config/peer-source.js';
import type { ReferenceSources } from '../../config/peer-references.js';
import { kindOf, type LiveResource, type RecordedResource } from '../../resources/index.js';
import { listed, plural } from '../words.js';
import { readPeerFile, skippedLines, type ExportSource } from './export-source.js';

/** The export at `path`: its YAML file, or its directory (the folders of the asset types tenantform manages). */
async function readExport(path: string, io: CommandIO): Promise<PeerRead> {
  const abs = absolute(path, io);
  let directory: boolean;
  try {
    directory = statSync(abs).isDirectory();
  } catch {
    throw new CliError(`--from-deploy-cli ${path}: no such file or directory`);
  }
  const peers = await import('../../config/from-deploy-cli.js');
  if (!directory) return peers.readDeployCliYaml(readPeerFile(path, '--from-deploy-cli', io), path);
  const entries = readdirSync(abs)
    .filter((name) => !name.startsWith('.'))
    .sort();
  const files = peers.deployCliAssets().flatMap(({ asset }) => {
    const folder = join(abs, asset.directory);
    if (!entries.includes(asset.directory) || !statSync(folder).isDirectory()) return [];
    return readdirSync(folder)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => {
        const relative = `${asset.directory}/${name}`;
        return { path: relative, text: readPeerFile(join(path, relative), '--from-deploy-cli', io) };
      });
  });
  return peers.readDeployCliDirectory(path, entries, files);
}

/** What the run says about the export: what it holds, and what it skipped. */
function leadLines(path: string, read: PeerRead): string {
  return (
    `Read ${path}: ${plural(read.resources.length, 'resource')} tenantform manages` +
    (read.skipped.length > 0 ? `; skipped ${read.skipped.length}:\n${skippedLines(read.skipped)}` : '.\n')
  );
}

/** Spec: recorded as adopted (no id), and the import that attaches one. */
function specRecords(read: PeerRead): { records: RecordedResource[]; after: string } {
  const records = read.resources.map(({ kind, address, identity, attributes }) => ({
    kind,
    address,
    identity,
    attributes,
    id: null,
    ...(kindOf(kind).id ? { adopted: true } : {}),
  }));
  const withIds = read.resources.filter((r) => kindOf(r.kind).id !== null);
  if (withIds.length === 0) return { records, after: '' };
  const example = withIds[0]!;
  return {
    records,
    after:
      `The Deploy CLI keeps no ids, and the spec API profile cannot look them up: ${plural(withIds.length, 'resource is', 'resources are')} recorded without an id (as a 409 adopts one). ` +
      `Until one has its id, a change that needs it (a replace, a removal) is blocked: attach it with tenantform import, e.g.\n` +
      `  tenantform import '${example.address}' <id>\n`,
  };
}

/** Full: each resource with the id and live settings the tenant has, or left out when the tenant lacks it. */
function fullRecords(
  read: PeerRead,
  live: readonly LiveResource[],
): { records: RecordedResource[]; after: string } {
  const byAddress = new Map(live.map((r) => [r.address, r]));
  const records: RecordedResource[] = [];
  const missing: PeerFound[] = [];
  for (const r of read.resources) {
    const found = byAddress.get(r.address);
    if (!found) missing.push(r);
    else
      records.push({
        kind: r.kind,
        address: r.address,
        identity: r.identity,
        attributes: found.attributes,
        id: found.id,
      });
  }
  const after =
    missing.length === 0
      ? ''
      : `Not on the tenant, so not recorded (the next apply creates ${missing.length === 1 ? 'it' : 'them'}): ${listed(missing.map((m) => m.origin))}.\n`;
  return { records, after };
}

/**
 * Reads the tenant (API profile full), in one pass through one client: its
 * policies and profiles for their ids, and, when a name is left to resolve,
 * its Actions (those a profile may name: deployed, bound to
 * custom-token-exchange).
 */
async function readTenant(
  request: ExportRequest,
  io: CommandIO,
  needsActions: boolean,
): Promise<{ live: LiveResource[]; actions: ReferenceSources['lists']; summary: string }> {
  const live = await import('../tenant-read.js');
  const api = await import('../../api/index.js');
  const { openClient } = await import('../../run/connection.js');
  const { REFERENCE_LISTS, operationsFor } = await import('../../resources/index.js');
  const input: ConfigInput = { env: null, paths: [request.dir], varFiles: [] };
  const { parallelism } = request;
  const actionList = REFERENCE_LISTS.find((list) => list.name === 'action')!;
  const client = await openClient(request.connection, input, runIO(io), { parallelism });
  let read;
  try {
    read = await api.readTenant(client.call, {
      listOf: (kind) => operationsFor(kind, 'full').list,
      values: { user_id: [] },
      references: needsActions ? [{ list: actionList, queries: actionList.queries(null) }] : [],
      concurrency: live.readConcurrency(parallelism),
    });
  } finally {
    await client.close();
  }
  const items = (read.references.items[actionList.name] ?? []).filter(
    (item) => actionList.usable?.(item) ?? true,
  );
  const actions = needsActions ? ', and its Actions,' : '';
  return {
    live: read.resources,
    actions: { actions: items },
    summary: `Read ${plural(read.reads.length, 'list')} from the tenant${actions} in ${plural(read.pages, 'request')}.\n`,
  };
}

/** The Deploy CLI export's resources, with ids from the tenant (full) or none (spec); null when it has problems (printed). */
export async function deployCliSource(
  request: ExportRequest,
  source: Extract<ExportSourceRequest, { kind: 'deploy-cli' }>,
  io: CommandIO,
): Promise<ExportSource | null> {
  const { path } = source;
  const given = { actions: source.actionIds };
  let read = await readExport(path, io);
  const refs = await import('../../config/peer-references.js');
  let tenant: Awaited<ReturnType<typeof readTenant>> | null = null;
  if (read.issues.length === 0 && request.api === 'full')
    tenant = await readTenant(request, io, refs.unresolvedNames(read, { given }).size > 0);
  if (read.issues.length === 0)
    read = refs.resolveReferences(read, { given, lists: tenant?.actions ?? null });
  if (read.issues.length > 0) {
    reportIssues(read.issues, io);
    io.stderr.write('Nothing was written.\n');
    return null;
  }
  const { deployCliAssets } = await import('../../config/from-deploy-cli.js');
  const keys = deployCliAssets().map(({ asset }) => asset.key);
  if (read.resources.length === 0)
    throw new CliError(`${path} holds no ${listed(keys, 'or')}; nothing was written`);
  const { records, after } = tenant ? fullRecords(read, tenant.live) : specRecords(read);
  const handOver = `The Deploy CLI still deploys them: add ${listed(keys)} to its AUTH0_EXCLUDED, so that only tenantform changes them.\n`;
  return {
    resources: read.resources,
    records,
    lead: (tenant?.summary ?? '') + leadLines(path, read),
    users: 0,
    idsFrom: tenant ? ' with the ids found on the tenant' : '',
    after: after + handOver,
  };
}
