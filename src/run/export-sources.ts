/**
 * Where an export takes its resources from: the tenant (API profile full),
 * a Terraform state, or an Auth0 Deploy CLI export (deploy-cli-source.ts).
 * Each gives an ExportSource (export-source.ts); export.ts writes and
 * records every source the same way.
 */
import type { PeerRead } from '../config/peer-source.js';
import { KINDS, readPer } from '../resources/index.js';
import { RunError } from './errors.js';
import { exportInput, readPeerFile, recordOf, type ExportSource, type IssuesView } from './export-source.js';
import type { ExportRequest } from './read-requests.js';
import type { RunIO } from './requests.js';

/** The tenant's resources (API profile full), with their ids. */
async function tenantSource(
  request: ExportRequest,
  users: readonly string[],
  io: RunIO,
): Promise<ExportSource> {
  const { readLive } = await import('./tenant-read.js');
  const { openClient } = await import('./connection.js');
  const { parallelism } = request;
  const client = await openClient(request.connection, exportInput(request), io, { parallelism });
  let read;
  try {
    read = await readLive(client, { user_id: users }, parallelism);
  } finally {
    await client.close();
  }
  return {
    resources: read.resources,
    records: read.resources.map(recordOf),
    users: users.length,
    origin: { kind: 'tenant', read },
  };
}

/** The number of distinct users the resources of `read` read per user (permissions) belong to. */
function usersOf(read: PeerRead): number {
  const perUser = new Set(KINDS.filter((k) => readPer(k).includes('user_id')).map((k) => k.name));
  return new Set(read.resources.filter((r) => perUser.has(r.kind)).map((r) => r.attributes.user_id)).size;
}

/** A Terraform state's resources, with the ids Terraform recorded; null when it has problems (told). */
async function terraformSource(file: string, io: RunIO, view: IssuesView): Promise<ExportSource | null> {
  const text = readPeerFile(file, 'terraform', io);
  const { readTerraformState } = await import('../config/from-terraform.js');
  const read = readTerraformState(text, file);
  if (read.issues.length > 0) {
    view.event({ kind: 'config-issues', issues: read.issues });
    return null;
  }
  if (read.resources.length === 0) {
    const types = KINDS.flatMap((k) => (k.peers?.terraform ?? []).map((t) => t.type));
    throw new RunError(
      { code: 'PEER_SOURCE_EMPTY', peer: 'terraform', path: file, types },
      `${file} holds none of the resource types tenantform manages (${types.join(', ')})`,
    );
  }
  return {
    resources: read.resources,
    records: read.resources.map(recordOf),
    users: usersOf(read),
    origin: { kind: 'terraform', file, read },
  };
}

/** The source the request names; null when a peer's files have problems (told to `view` as config issues). */
export async function readExportSource(
  request: ExportRequest,
  io: RunIO,
  view: IssuesView,
): Promise<ExportSource | null> {
  const { source } = request;
  if (source.kind === 'terraform') return terraformSource(source.file, io, view);
  if (source.kind === 'deploy-cli') {
    const { deployCliSource } = await import('./deploy-cli-source.js');
    return deployCliSource(request, source, io, view);
  }
  return tenantSource(request, source.users, io);
}
