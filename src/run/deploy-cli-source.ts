/**
 * An export from an Auth0 Deploy CLI export (its YAML file or its
 * directory) as an ExportSource. The Deploy CLI keeps no ids: under the API
 * profile full they are looked up on the tenant (the policy and profile
 * lists, matched by identity; Actions named by name resolved with the
 * tenant's Actions), under spec the resources are recorded without ids (as a
 * 409 adopts them; the source names them, for the command to say which
 * `import` attaches one). Nothing is written when a problem is found.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerFound, PeerRead } from '../config/peer-source.js';
import type { ReferenceSources } from '../config/peer-references.js';
import { kindOf, type LiveResource, type RecordedResource } from '../resources/index.js';
import { RunError } from './errors.js';
import { exportInput, readPeerFile, type ExportSource, type IssuesView } from './export-source.js';
import type { ExportRequest, ExportSourceRequest } from './read-requests.js';
import type { RunIO } from './requests.js';
import { absolute } from './state-store.js';

/** The export at `path`: its YAML file, or its directory (the folders of the asset types tenantform manages). */
async function readExport(path: string, io: RunIO): Promise<PeerRead> {
  const abs = absolute(path, io);
  let directory: boolean;
  try {
    directory = statSync(abs).isDirectory();
  } catch {
    const problem = {
      code: 'PEER_FILE_UNREADABLE',
      peer: 'deploy-cli',
      path,
      reason: 'no such file or directory',
    } as const;
    throw new RunError(problem, `${path}: no such file or directory`);
  }
  const peers = await import('../config/from-deploy-cli.js');
  if (!directory) return peers.readDeployCliYaml(readPeerFile(path, 'deploy-cli', io), path);
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
        return { path: relative, text: readPeerFile(join(path, relative), 'deploy-cli', io) };
      });
  });
  return peers.readDeployCliDirectory(path, entries, files);
}

/** Spec: recorded as adopted (no id); `unidentified`: those whose kind has an id, for an import to attach. */
function specRecords(read: PeerRead): { records: RecordedResource[]; unidentified: string[] } {
  const records = read.resources.map(({ kind, address, identity, attributes }) => ({
    kind,
    address,
    identity,
    attributes,
    id: null,
    ...(kindOf(kind).id ? { adopted: true } : {}),
  }));
  const unidentified = read.resources.filter((r) => kindOf(r.kind).id !== null).map((r) => r.address);
  return { records, unidentified };
}

/** Full: each resource with the id and live settings the tenant has, or left out (`missing`) when the tenant lacks it. */
function fullRecords(
  read: PeerRead,
  live: readonly LiveResource[],
): { records: RecordedResource[]; missing: PeerFound[] } {
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
  return { records, missing };
}

/** The tenant's read for the ids: its resources, its usable Actions, and what it took. */
interface TenantIds {
  live: LiveResource[];
  actions: ReferenceSources['lists'];
  read: { lists: number; pages: number; actions: boolean };
}

/**
 * Reads the tenant (API profile full), in one pass through one client: its
 * policies and profiles for their ids, and, when a name is left to resolve,
 * its Actions (those a profile may name: deployed, bound to
 * custom-token-exchange).
 */
async function readTenant(request: ExportRequest, io: RunIO, needsActions: boolean): Promise<TenantIds> {
  const api = await import('../api/index.js');
  const { openClient } = await import('./connection.js');
  const { readConcurrency } = await import('./tenant-read.js');
  const { REFERENCE_LISTS, operationsFor } = await import('../resources/index.js');
  const { parallelism } = request;
  const actionList = REFERENCE_LISTS.find((list) => list.name === 'action')!;
  const client = await openClient(request.connection, exportInput(request), io, { parallelism });
  let read;
  try {
    read = await api.readTenant(client.call, {
      listOf: (kind) => operationsFor(kind, 'full').list,
      values: { user_id: [] },
      references: needsActions ? [{ list: actionList, queries: actionList.queries(null) }] : [],
      concurrency: readConcurrency(parallelism),
    });
  } finally {
    await client.close();
  }
  const items = (read.references.items[actionList.name] ?? []).filter(
    (item) => actionList.usable?.(item) ?? true,
  );
  return {
    live: read.resources,
    actions: { actions: items },
    read: { lists: read.reads.length, pages: read.pages, actions: needsActions },
  };
}

/** The Deploy CLI export's resources, with ids from the tenant (full) or none (spec); null when it has problems (told). */
export async function deployCliSource(
  request: ExportRequest,
  source: Extract<ExportSourceRequest, { kind: 'deploy-cli' }>,
  io: RunIO,
  view: IssuesView,
): Promise<ExportSource | null> {
  const { path } = source;
  const given = { actions: source.actionIds };
  let read = await readExport(path, io);
  const refs = await import('../config/peer-references.js');
  let tenant: TenantIds | null = null;
  if (read.issues.length === 0 && request.api === 'full')
    tenant = await readTenant(request, io, refs.unresolvedNames(read, { given }).size > 0);
  if (read.issues.length === 0)
    read = refs.resolveReferences(read, { given, lists: tenant?.actions ?? null });
  if (read.issues.length > 0) {
    view.event({ kind: 'config-issues', issues: read.issues });
    return null;
  }
  const { deployCliAssets } = await import('../config/from-deploy-cli.js');
  const keys = deployCliAssets().map(({ asset }) => asset.key);
  if (read.resources.length === 0) {
    const problem = { code: 'PEER_SOURCE_EMPTY', peer: 'deploy-cli', path, types: keys } as const;
    throw new RunError(problem, `${path} holds none of ${keys.join(', ')}`);
  }
  const full = tenant ? fullRecords(read, tenant.live) : null;
  const spec = full ? null : specRecords(read);
  return {
    resources: read.resources,
    records: full?.records ?? spec!.records,
    users: 0,
    origin: {
      kind: 'deploy-cli',
      path,
      read,
      keys,
      tenant: tenant?.read ?? null,
      missing: full?.missing ?? [],
      unidentified: spec?.unidentified ?? [],
    },
  };
}
