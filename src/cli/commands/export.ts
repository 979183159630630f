import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, type CommandIO } from '../io.js';
import { absolute, openStore, parseCount, withLockedState, type StateFlags } from '../context.js';
import { stateScopeOf, type ConfigInput } from '../inputs.js';
import { guardTenant } from '../tenant-binding.js';
import { openClient, profileOf, readLive, readSummary, requireFull } from '../live.js';
import type { ExportFlags } from '../definitions.js';
import { KINDS, operationsFor, pathParams, type Kind, type LiveResource } from '../../resources/index.js';
import { listed, plural } from '../words.js';

const SCHEMA_PATH = './schemas/config.schema.json';

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

/**
 * "Exported 2 rate limit policies, 1 token exchange profile and 3 permissions of 2 users":
 * the kinds read whole, then those read per user (a grouped kind counted by its members).
 */
function exportedLine(resources: readonly LiveResource[], users: number): string {
  const count = (kind: Kind) =>
    plural(resources.filter((r) => r.kind === kind.name).length, kind.config.group?.member ?? kind.title);
  const perUser = (kind: Kind) => pathParams(operationsFor(kind, 'full').list?.path ?? '').length > 0;
  const whole = KINDS.filter((k) => !perUser(k)).map(count);
  const ofUsers = KINDS.filter(perUser).map(count);
  return ofUsers.length === 0
    ? `Exported ${listed(whole)}`
    : `Exported ${listed([...whole, ...ofUsers])} of ${plural(users, 'user')}`;
}

/**
 * tenantform export DIR: reads the tenant's policies and profiles, and the
 * permissions of the users named, and writes them into DIR as config files
 * (one per kind, with the $schema comment, the schemas copied beside them),
 * then records them in the state (DIR/.tenantform/state.json unless
 * --state, --backend or --no-state say otherwise), so that `validate`
 * passes and `plan` has nothing to do right after.
 */
export async function exportAction(
  dirArg: string,
  flags: ExportFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const input: ConfigInput = { env: null, paths: [dirArg], varFiles: [] };
  requireFull(await profileOf(flags, input), 'export');
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const users = usersNamed(flags, io);
  const dir = absolute(dirArg, io);
  const names = KINDS.map((kind) => kind.config.file);
  const existing = names.filter((name) => existsSync(join(dir, name)));
  if (existing.length > 0 && !flags.force) {
    throw new CliError(
      `${dirArg} already has ${existing.join(', ')}; export writes these files: choose an empty directory, or pass --force to overwrite them`,
    );
  }

  const client = await openClient(flags, input, io, { parallelism });
  let read;
  try {
    read = await readLive(client, { user_id: users }, parallelism);
  } finally {
    await client.close();
  }
  const { exportConfigFiles } = await import('../../config/index.js');
  const files = exportConfigFiles(read.resources, SCHEMA_PATH);

  mkdirSync(dir, { recursive: true });
  for (const file of files) writeFileSync(join(dir, file.name), file.text);
  if (!existsSync(join(dir, 'schemas', 'config.schema.json'))) {
    const { scaffoldFiles } = await import('./init.js');
    mkdirSync(join(dir, 'schemas'), { recursive: true });
    for (const s of scaffoldFiles().filter((f) => f.path.startsWith('schemas/')))
      writeFileSync(join(dir, s.path), s.content);
  }

  io.stdout.write(`${readSummary(read)}\n`);
  io.stdout.write(
    `${exportedLine(read.resources, users.length)} to ${dirArg}:\n` +
      files.map((f) => `  ${join(dirArg, f.name)} (${f.count})\n`).join(''),
  );

  if (flags.state === false) {
    io.stdout.write('Not recorded in any state (--no-state): a plan of these files would create them all.\n');
    return 0;
  }
  const { state: _state, ...rest } = flags;
  const stateFlags: StateFlags = {
    ...rest,
    ...(typeof flags.state === 'string' ? { state: flags.state } : {}),
  };
  const store = await openStore(stateFlags, dirArg, io, await stateScopeOf(input, flags, io));
  try {
    return await withLockedState(store, 'export', { ...stateFlags, io }, async (session) => {
      await guardTenant(session, { store, input, io, command: 'export' }, flags, true);
      for (const r of read.resources) {
        await session.record({
          op: 'put',
          resource: {
            kind: r.kind,
            address: r.address,
            identity: r.identity,
            attributes: r.attributes,
            id: r.id,
          },
        });
      }
      await session.commit();
      io.stdout.write(
        `Recorded ${plural(read.resources.length, 'resource')} in ${store.description}; tenantform plan ${dirArg} has nothing to do.\n`,
      );
      return 0;
    });
  } finally {
    await store.close();
  }
}
