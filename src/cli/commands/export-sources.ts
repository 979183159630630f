/**
 * Where `tenantform export` takes its resources from: the tenant (API
 * profile full), a Terraform state (--from-terraform) or an Auth0 Deploy CLI
 * export (--from-deploy-cli, deploy-cli-source.ts). Each gives an
 * ExportSource; export.ts writes and records it the same way.
 */
import { CliError, type CommandIO } from '../io.js';
import { runIO } from '../context.js';
import type { ConfigInput } from '../../run/requests.js';
import type { ExportRequest } from '../../run/read-requests.js';
import { reportIssues } from '../config-issues.js';
import type { PeerRead } from '../../config/peer-source.js';
import { terraformAddressesToForget } from '../../config/from-terraform.js';
import { shellQuote } from '../../plan/reasons.js';
import { readPeerFile, skippedLines, type ExportSource } from './export-source.js';
import { KINDS, readPer, type LiveResource, type RecordedResource } from '../../resources/index.js';
import { plural } from '../words.js';

/** What the state records of a resource read with its id. */
const recordOf = ({ kind, address, identity, attributes, id }: LiveResource): RecordedResource => ({
  kind,
  address,
  identity,
  attributes,
  id,
});

/** The tenant's resources (API profile full), with their ids. */
async function tenantSource(
  request: ExportRequest,
  users: readonly string[],
  io: CommandIO,
): Promise<ExportSource> {
  const live = await import('../tenant-read.js');
  const { openClient } = await import('../../run/connection.js');
  const input: ConfigInput = { env: null, paths: [request.dir], varFiles: [] };
  const { parallelism } = request;
  const client = await openClient(request.connection, input, runIO(io), { parallelism });
  let read;
  try {
    read = await live.readLive(client, { user_id: users }, parallelism);
  } finally {
    await client.close();
  }
  return {
    resources: read.resources,
    records: read.resources.map(recordOf),
    lead: `${live.readSummary(read)}\n`,
    users: users.length,
    idsFrom: '',
    after: '',
  };
}

/** The number of distinct users the resources of `read` read per user (permissions) belong to. */
function usersOf(read: PeerRead): number {
  const perUser = new Set(KINDS.filter((k) => readPer(k).includes('user_id')).map((k) => k.name));
  return new Set(read.resources.filter((r) => perUser.has(r.kind)).map((r) => r.attributes.user_id)).size;
}

/**
 * "terraform state rm …" for the Terraform resources read: once tenantform
 * manages them, Terraform must stop (without destroying them).
 */
function stateRmHint(read: PeerRead): string {
  const addresses = terraformAddressesToForget(read);
  return (
    `Terraform still manages them (${plural(addresses.length, 'resource')} in its state): remove them from its state, which destroys nothing on the tenant, so that only tenantform changes them:\n` +
    `  terraform state rm ${addresses.map(shellQuote).join(' \\\n    ')}\n`
  );
}

/** A Terraform state's resources, with the ids Terraform recorded. */
function terraformSource(file: string, read: PeerRead): ExportSource {
  if (read.resources.length === 0) {
    const types = KINDS.flatMap((k) => (k.peers?.terraform ?? []).map((t) => t.type));
    throw new CliError(
      `${file} holds none of the resource types tenantform manages (${types.join(', ')}); nothing was written`,
    );
  }
  const lead =
    `Read ${file}: ${plural(read.resources.length, 'resource')} tenantform manages` +
    (read.skipped.length > 0 ? `; skipped ${read.skipped.length}:\n${skippedLines(read.skipped)}` : '.\n');
  return {
    resources: read.resources,
    records: read.resources.map(recordOf),
    lead,
    users: usersOf(read),
    idsFrom: ` with the ids from ${file}`,
    after: stateRmHint(read),
  };
}

/** The source the request names; null when a peer's files have problems (printed). */
export async function readExportSource(request: ExportRequest, io: CommandIO): Promise<ExportSource | null> {
  const { source } = request;
  if (source.kind === 'terraform') {
    const text = readPeerFile(source.file, '--from-terraform', io);
    const { readTerraformState } = await import('../../config/from-terraform.js');
    const read = readTerraformState(text, source.file);
    if (read.issues.length > 0) {
      reportIssues(read.issues, io);
      io.stderr.write('Nothing was written.\n');
      return null;
    }
    return terraformSource(source.file, read);
  }
  if (source.kind === 'deploy-cli') {
    const { deployCliSource } = await import('./deploy-cli-source.js');
    return deployCliSource(request, source, io);
  }
  return tenantSource(request, source.users, io);
}
