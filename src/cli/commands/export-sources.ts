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
import type { PeerRead, PeerSkip } from '../../config/peer-source.js';
import type { ExportSource } from './export.js';
import { KINDS } from '../../resources/index.js';
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

/** The tenant's resources (API profile full), with their ids. */
async function tenantSource(dirArg: string, flags: ExportFlags, io: CommandIO): Promise<ExportSource> {
  const live = await import('../live.js');
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
    records: read.resources.map(({ kind, address, identity, attributes, id }) => ({
      kind,
      address,
      identity,
      attributes,
      id,
    })),
    lead: `${live.readSummary(read)}\n`,
    users: users.length,
    idsFrom: '',
    after: '',
  };
}

/** A peer's file as text; a problem reading it is an error naming it. */
export function readPeerFile(path: string, flag: string, io: CommandIO): string {
  try {
    return readFileSync(absolute(path, io), 'utf8');
  } catch (err) {
    const reason = (err as { code?: string }).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new CliError(`${flag} ${path}: ${reason}`);
  }
}

/** What was left out, grouped by why: a few named, many counted per type. */
export function skippedLines(skipped: readonly PeerSkip[]): string {
  const byWhy = new Map<string, PeerSkip[]>();
  for (const s of skipped) byWhy.set(s.why, [...(byWhy.get(s.why) ?? []), s]);
  const lines: string[] = [];
  for (const [why, items] of byWhy) {
    if (items.length <= 3) {
      for (const s of items) lines.push(`  ${s.what}: ${why}\n`);
      continue;
    }
    const byType = new Map<string, number>();
    for (const s of items) byType.set(s.type, (byType.get(s.type) ?? 0) + 1);
    const types = [...byType].map(([type, n]) => `${type} ×${n}`).join(', ');
    lines.push(`  ${items.length} (${types}): ${why}\n`);
  }
  return lines.join('');
}

/** The number of distinct users the permissions of `read` belong to. */
function usersOf(read: PeerRead): number {
  return new Set(read.resources.filter((r) => r.kind === 'user_permission').map((r) => r.attributes.user_id))
    .size;
}

/**
 * "terraform state rm …" for the Terraform resources read: once tenantform
 * manages them, Terraform must stop (without destroying them).
 */
function stateRmHint(read: PeerRead): string {
  const resources = [...new Set(read.resources.map((r) => r.origin.replace(/\[[^\]]*\]$/, '')))];
  return (
    `Terraform still manages them (${plural(resources.length, 'resource')} in its state): remove them from its state, which destroys nothing on the tenant, so that only tenantform changes them:\n` +
    `  terraform state rm ${resources.map((r) => `'${r}'`).join(' \\\n    ')}\n`
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
    records: read.resources.map(({ kind, address, identity, attributes, id }) => ({
      kind,
      address,
      identity,
      attributes,
      id,
    })),
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
  if (flags.fromTerraform && ((flags.user?.length ?? 0) > 0 || flags.usersFile))
    throw new CliError(
      '--user and --users-file name users to read on the tenant; --from-terraform reads a file instead',
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
  return tenantSource(dirArg, flags, io);
}
