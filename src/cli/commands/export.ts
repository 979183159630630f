import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, type CommandIO } from '../io.js';
import { absolute, runIO, withLockedState } from '../context.js';
import { guardTenant } from '../tenant-binding.js';
import type { ExportFlags } from '../definitions.js';
import type { ConfigInput, StateRequest } from '../../run/requests.js';
import type { ExportRequest } from '../../run/read-requests.js';
import { openStore, stateScopeOf } from '../../run/state-store.js';
import { parseExportRequest } from '../read-requests.js';
import { KINDS, readPer, type Kind, type LiveResource } from '../../resources/index.js';
import type { ExportSource } from './export-source.js';
import { listed, plural } from '../words.js';

const SCHEMA_PATH = './schemas/config.schema.json';

/**
 * "Exported 2 rate limit policies, 1 token exchange profile and 3 permissions of 2 users":
 * the kinds read whole, then those read per user (a grouped kind counted by its members).
 */
function exportedLine(resources: readonly LiveResource[], users: number): string {
  const count = (kind: Kind) =>
    plural(resources.filter((r) => r.kind === kind.name).length, kind.config.group?.member ?? kind.title);
  const perUser = (kind: Kind) => readPer(kind).length > 0;
  const whole = KINDS.filter((k) => !perUser(k)).map(count);
  // A source that reads no user (a peer's files without permissions) says nothing of them.
  const ofUsers = KINDS.filter(
    (k) => perUser(k) && (users > 0 || resources.some((r) => r.kind === k.name)),
  ).map(count);
  return ofUsers.length === 0
    ? `Exported ${listed(whole)}`
    : `Exported ${listed([...whole, ...ofUsers])} of ${plural(users, 'user')}`;
}

/**
 * Refuses, unless --force, a directory that already holds config: files of
 * the names export writes would be overwritten, and any other config file
 * would join the exported one (as init refuses, the next validate would find
 * every resource declared twice).
 */
async function checkTarget(dirArg: string, dir: string, force: boolean | undefined, io: CommandIO) {
  if (force || !existsSync(dir)) return;
  const names = KINDS.map((kind) => kind.config.file);
  const same = names.filter((name) => existsSync(join(dir, name)));
  const { findConfigFiles, displayPath } = await import('../../config/index.js');
  const found = await findConfigFiles([dir], io.cwd, new Set());
  const others = found.files
    .map((file) => displayPath(file, io.cwd))
    .filter((f) => !same.some((n) => f.endsWith(n)));
  if (same.length === 0 && others.length === 0) return;
  const listedOthers =
    others.slice(0, 5).join(', ') + (others.length > 5 ? ` and ${others.length - 5} more` : '');
  const why = [
    ...(same.length > 0 ? [`it already has ${same.join(', ')}, which export would overwrite`] : []),
    ...(others.length > 0 ? [`it holds config (${listedOthers}) that the exported files would join`] : []),
  ];
  throw new CliError(
    `${dirArg}: ${why.join('; ')}; nothing was written. Export into an empty directory, or pass --force to write anyway`,
  );
}

/** Writes the config files (and the schemas beside them when missing); returns what it says about them. */
async function writeFiles(dirArg: string, dir: string, source: ExportSource): Promise<string> {
  const { exportConfigFiles } = await import('../../config/index.js');
  const files = exportConfigFiles(source.resources, SCHEMA_PATH);
  mkdirSync(dir, { recursive: true });
  for (const file of files) writeFileSync(join(dir, file.name), file.text);
  if (!existsSync(join(dir, 'schemas', 'config.schema.json'))) {
    const { scaffoldFiles } = await import('./init.js');
    mkdirSync(join(dir, 'schemas'), { recursive: true });
    for (const s of scaffoldFiles().filter((f) => f.path.startsWith('schemas/')))
      writeFileSync(join(dir, s.path), s.content);
  }
  return (
    `${exportedLine(source.resources, source.users)} to ${dirArg}:\n` +
    files.map((f) => `  ${join(dirArg, f.name)} (${f.count})\n`).join('')
  );
}

/** Records the source's resources in the state the request names, under its lock. */
async function record(
  request: ExportRequest,
  state: StateRequest,
  source: ExportSource,
  io: CommandIO,
): Promise<number> {
  const { dir: dirArg, connection } = request;
  const input: ConfigInput = { env: null, paths: [dirArg], varFiles: [] };
  const scope = await stateScopeOf(input, connection.named, runIO(io));
  const store = await openStore(state, dirArg, runIO(io), scope);
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  try {
    return await withLockedState(
      store,
      'export',
      { lockTimeoutMs: request.lockTimeoutMs, io },
      async (session) => {
        await guardTenant(session, { store, input, io, command: 'export' }, tenant, true);
        // One write of the whole document, not a journal entry per resource: an export of
        // 60,000 resources would otherwise wait for 60,000 fsyncs.
        const byAddress = new Map(session.doc.resources.map((r) => [r.address, r]));
        for (const resource of source.records) byAddress.set(resource.address, resource);
        await session.replace({ ...session.doc, resources: [...byAddress.values()] });
        io.stdout.write(
          `Recorded ${plural(source.records.length, 'resource')} in ${store.description}${source.idsFrom}; tenantform plan ${dirArg} has nothing to do.\n${source.after}`,
        );
        return 0;
      },
    );
  } finally {
    await store.close();
  }
}

/**
 * tenantform export DIR: reads the tenant's policies and profiles and the
 * permissions of the users named (or, with --from-terraform or
 * --from-deploy-cli, a peer's files), writes them into DIR as config files
 * (one per kind, with the $schema comment, the schemas copied beside them),
 * then records them in the state (DIR's default state for the target, see
 * state-location.ts, unless --state, --backend or --no-state say
 * otherwise), so that `validate`
 * passes and `plan` has nothing to do right after. Nothing is written
 * when the source has a problem.
 */
export async function exportAction(
  dirArg: string,
  flags: ExportFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  // The directory is looked at before the flags, as it always was.
  await checkTarget(dirArg, absolute(dirArg, io), flags.force, io);
  return runExport(parseExportRequest(dirArg, flags, io), io);
}

/** Runs an export request: the source read, the files written, the resources recorded; the exit code. */
async function runExport(request: ExportRequest, io: CommandIO): Promise<number> {
  const { readExportSource } = await import('./export-sources.js');
  const source = await readExportSource(request, io);
  if (source === null) return 1;
  io.stdout.write(source.lead);
  io.stdout.write(await writeFiles(request.dir, absolute(request.dir, io), source));
  if (request.state === null) {
    io.stdout.write('Not recorded in any state (--no-state): a plan of these files would create them all.\n');
    return 0;
  }
  return record(request, request.state, source, io);
}
