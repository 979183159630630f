/**
 * Where `tenantform export` takes its resources from: the tenant (API
 * profile full), a Terraform state (--from-terraform) or an Auth0 Deploy CLI
 * export (--from-deploy-cli, deploy-cli-source.ts). Each gives an
 * ExportSource; export.ts writes and records it the same way.
 */
import { readFileSync } from 'node:fs';
import { CliError, type CommandIO } from '../io.js';
import { absolute, parseCount } from '../context.js';
import type { ConfigInput } from '../inputs.js';
import { reportIssues } from '../config-issues.js';
import type { ExportFlags } from '../definitions.js';
import type { PeerRead } from '../../config/peer-source.js';
import { terraformAddressesToForget } from '../../config/from-terraform.js';
import { shellQuote } from '../../plan/reasons.js';
import { readPeerFile, skippedLines, type ExportSource } from './export-source.js';
import { KINDS, readPer, type LiveResource, type RecordedResource } from '../../resources/index.js';
import { plural } from '../words.js';

/** The user ids of --user and --users-file, once each, in the order given. */
function usersNamed(flags: ExportFlags, io: CommandIO): string[] {
  const users = [...(flags.user ?? [])];
  if (flags.usersFile) {
    let text: string;
    try {
      text = readFileSync(absolute(flags.usersFile, io), 'utf8');
    } catch (err) {
      throw new CliError(
        `--users-file ${flags.usersFile}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    for (const line of text.split(/\r?\n/)) {
      const id = line.trim();
      if (id !== '' && !id.startsWith('#')) users.push(id);
    }
  }
  return [...new Set(users)];
}

/** What the state records of a resource read with its id. */
const recordOf = ({ kind, address, identity, attributes, id }: LiveResource): RecordedResource => ({
  kind,
  address,
  identity,
  attributes,
  id,
});

/** The tenant's resources (API profile full), with their ids. */
async function tenantSource(dirArg: string, flags: ExportFlags, io: CommandIO): Promise<ExportSource> {
  const live = await import('../tenant-read.js');
  const input: ConfigInput = { env: null, paths: [dirArg], varFiles: [] };
  live.requireFull(await live.profileOf(flags, input), 'export');
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const users = usersNamed(flags, io);
  const client = await live.openClient(flags, input, io, { parallelism });
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

/** The source the flags name; null when a peer's files have problems (printed). */
export async function readExportSource(
  dirArg: string,
  flags: ExportFlags,
  io: CommandIO,
): Promise<ExportSource | null> {
  const peers = [flags.fromTerraform && '--from-terraform', flags.fromDeployCli && '--from-deploy-cli'];
  const given = peers.filter((p): p is string => typeof p === 'string');
  if (given.length > 1) throw new CliError('give one of --from-terraform and --from-deploy-cli');
  if (given.length === 1 && ((flags.user?.length ?? 0) > 0 || flags.usersFile))
    throw new CliError(
      `--user and --users-file name users to read on the tenant; ${given[0]} reads a file instead`,
    );
  if ((flags.actionId?.length ?? 0) > 0 && !flags.fromDeployCli)
    throw new CliError(
      '--action-id gives the ids of the Actions a Deploy CLI export names: use it with --from-deploy-cli',
    );
  if (flags.fromTerraform) {
    const text = readPeerFile(flags.fromTerraform, '--from-terraform', io);
    const { readTerraformState } = await import('../../config/from-terraform.js');
    const read = readTerraformState(text, flags.fromTerraform);
    if (read.issues.length > 0) {
      reportIssues(read.issues, io);
      io.stderr.write('Nothing was written.\n');
      return null;
    }
    return terraformSource(flags.fromTerraform, read);
  }
  if (flags.fromDeployCli) {
    const { deployCliSource } = await import('./deploy-cli-source.js');
    return deployCliSource(dirArg, flags, io);
  }
  return tenantSource(dirArg, flags, io);
}
