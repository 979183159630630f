/**
 * validate, explain, simulate, import and export made into typed requests
 * (src/run/read-requests.ts): each command's flags, with the process
 * environment and tenantform.yaml, parsed and checked here once, in the
 * order the commands always checked them; what runs the command takes the
 * request and never sees a flag. Every problem with a flag is said here,
 * naming it.
 */
import { readFileSync } from 'node:fs';
import { ProjectError } from '../config/project.js';
import {
  formatAddress,
  isKindId,
  isKindName,
  kindOf,
  KINDS,
  operationsFor,
  parseAddress,
  type Kind,
} from '../resources/index.js';
import type {
  ExplainRequest,
  ExportRequest,
  ExportSourceRequest,
  ImportHow,
  ImportRequest,
  SimulateRequest,
  TenantReader,
  ValidateRequest,
  VarsOrProblem,
} from '../run/read-requests.js';
import type { ConfigInput } from '../run/requests.js';
import { environmentState } from '../run/state-store.js';
import { absolute, lockTimeoutOf, parseCount, stateRequestOf } from './context.js';
import type { ExplainFlags, ExportFlags, ImportFlags, SimulateFlags, ValidateFlags } from './definitions.js';
import { environmentApi, parseVarArgs, resolveInputs } from './inputs.js';
import { CliError, type CommandIO } from './io.js';
import { connectionRequestOf, type ConnectionFlags } from './requests.js';
import { requireFull } from './tenant-read.js';

/** How the command reads the tenant: the connection the flags name and the profile of --api or the environment. */
function readerOf(
  flags: ConnectionFlags & { api?: ValidateFlags['api'] },
  io: CommandIO,
  input: ConfigInput,
): TenantReader {
  return { connection: connectionRequestOf(flags, io, input), api: environmentApi(flags.api, input) };
}

/** --var values parsed, or (validate reports it as the config's) the problem with one, as a config issue. */
export function varsOrProblem(list: readonly string[]): VarsOrProblem {
  try {
    return { ok: true, vars: parseVarArgs(list) };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { ok: false, issue: { file: '', line: 0, col: 0, message: err.message, code: err.code } };
  }
}

/**
 * validate: the flags as one typed request. A tenantform.yaml that cannot be
 * read is not an error here: its problems are reported as the config's.
 */
export function parseValidateRequest(paths: string[], flags: ValidateFlags, io: CommandIO): ValidateRequest {
  let inputs: ConfigInput[];
  try {
    // --live reads one tenant: one environment.
    inputs = resolveInputs(paths, flags.env, flags.varFile, io, flags.live ? 'one' : 'all');
  } catch (err) {
    if (!(err instanceof ProjectError)) throw err;
    const source = { kind: 'broken-project' as const, issues: err.issues };
    return {
      source,
      vars: { ok: true, vars: {} },
      strict: false,
      live: null,
      output: { format: flags.format },
    };
  }
  return {
    source: { kind: 'inputs', inputs },
    vars: varsOrProblem(flags.var),
    strict: flags.strict === true,
    live: flags.live ? readerOf(flags, io, inputs[0]!) : null,
    output: { format: flags.format },
  };
}

/**
 * The --client values as client ids: an empty one is refused, and one written
 * as a consumer_selector (`client_id:ID`, as the config names it) is the id
 * after the prefix.
 */
export function clientIdsOf(values: readonly string[]): string[] {
  return values.map((value) => {
    const id = value.trim().replace(/^client_id:\s*/, '');
    if (id === '') {
      throw new CliError(
        value.trim() === ''
          ? '--client needs a client id (got an empty value)'
          : `--client ${value}: no client id after client_id:`,
      );
    }
    return id;
  });
}

/** explain: the flags as one typed request. */
export function parseExplainRequest(paths: string[], flags: ExplainFlags, io: CommandIO): ExplainRequest {
  const input = resolveInputs(paths, flags.env, flags.varFile, io, 'one')[0]!;
  return {
    input,
    vars: parseVarArgs(flags.var),
    clients: [...new Set(clientIdsOf(flags.client))],
    policies: flags.policy,
    allClients: flags.allClients ? readerOf(flags, io, input) : null,
    output: { format: flags.format },
  };
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --since: a duration back from `now` (30m, 24h, 7d) or a date; ms since the epoch. */
export function parseSince(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const back = /^(\d+)(m|h|d)$/.exec(value.trim());
  if (back) return now - Number(back[1]) * UNITS[back[2]!]!;
  const date = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value.trim())
    ? Date.parse(value.trim())
    : NaN;
  if (Number.isNaN(date)) {
    throw new CliError(
      `--since must be a duration back from now (30m, 24h, 7d) or a date such as 2026-11-20 or 2026-11-20T08:00:00Z (got "${value}")`,
    );
  }
  return date;
}

/** simulate: the flags as one typed request; `now` (ms) is what --since counts back from. */
export function parseSimulateRequest(
  paths: string[],
  flags: SimulateFlags,
  io: CommandIO,
  now: number,
): SimulateRequest {
  const since = parseSince(flags.since, now);
  const maxEvents = parseCount(flags.maxEvents, '--max-events', 1, 1_000_000_000)!;
  const input = resolveInputs(paths, flags.env, flags.varFile, io, 'one')[0]!;
  return {
    input,
    vars: parseVarArgs(flags.var),
    logs: flags.logs,
    since,
    maxEvents,
    reader: readerOf(flags, io, input),
    output: { format: flags.format },
  };
}

/** import's arguments: KIND IDENTITY [ID], or ADDRESS [ID]. */
function importAddress(
  first: string,
  second: string | undefined,
  third: string | undefined,
): { address: string; kind: Kind; id: string | null } {
  if (first.includes('[')) {
    const parsed = parseAddress(first);
    if (third) throw new CliError('usage: tenantform import ADDRESS [ID]');
    return {
      address: formatAddress(parsed.kind, parsed.identity),
      kind: kindOf(parsed.kind),
      id: second ?? null,
    };
  }
  if (!isKindName(first)) {
    const withIds = KINDS.filter((k) => k.id !== null).map((k) => k.name);
    throw new CliError(`unknown kind "${first}"; use ${withIds.join(' or ')}, or a full address`);
  }
  if (!second) throw new CliError('usage: tenantform import KIND IDENTITY [ID]');
  const kind = kindOf(first);
  const identity = kind.id ? kind.id.parseIdentity(second) : [second];
  if (!Array.isArray(identity)) throw new CliError(identity.problem);
  return { address: formatAddress(kind.name, identity), kind, id: third ?? null };
}

/** How import gets the id under `api`: given and read or attached, or looked up (full only). */
function importHow(kind: Kind, id: string | null, api: ImportRequest['api'], vars: string[]): ImportHow {
  if (id === null) {
    requireFull(api, 'import without an id');
    if (!operationsFor(kind, 'full').list)
      throw new CliError(`${kind.title.many} cannot be listed, so they cannot be looked up; give the id`);
    return { kind: 'look-up' };
  }
  if (operationsFor(kind, api).get) return { kind: 'read', id };
  return { kind: 'attach', id, vars: parseVarArgs(vars) };
}

/** import: the arguments and flags as one typed request. */
export function parseImportRequest(
  args: [first: string, second: string | undefined, third: string | undefined],
  flags: ImportFlags,
  io: CommandIO,
): ImportRequest {
  const { address, kind, id } = importAddress(...args);
  if (!kind.id) throw new CliError(`${kind.title.many} have no id on the tenant; there is nothing to import`);
  if (id !== null && !isKindId(kind, id))
    throw new CliError(`"${id}" does not look like a ${kind.name} id (expected ${kind.id.description})`);
  const input = resolveInputs([flags.config], flags.env, flags.varFile, io, 'one')[0]!;
  const api = environmentApi(flags.api, input);
  return {
    address,
    kind: kind.name,
    how: importHow(kind, id, api, flags.var),
    input,
    configPath: flags.config,
    state: environmentState(stateRequestOf(flags), input),
    lockTimeoutMs: lockTimeoutOf(flags),
    connection: connectionRequestOf(flags, io, input),
    api,
  };
}

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

/** --action-id NAME=ID, as a map; a malformed one is an error naming it. */
function actionIds(values: readonly string[] | undefined): Map<string, string> {
  const ids = new Map<string, string>();
  for (const value of values ?? []) {
    const at = value.lastIndexOf('=');
    if (at <= 0 || at === value.length - 1)
      throw new CliError(`--action-id ${value}: expected NAME=ID, the Action's name and its id`);
    ids.set(value.slice(0, at), value.slice(at + 1));
  }
  return ids;
}

/** The source the flags name: the tenant, a Terraform state or a Deploy CLI export; refuses flags that do not go together. */
function exportSource(flags: ExportFlags, api: ExportRequest['api'], io: CommandIO): ExportSourceRequest {
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
  if (flags.fromTerraform) return { kind: 'terraform', file: flags.fromTerraform };
  if (flags.fromDeployCli)
    return { kind: 'deploy-cli', path: flags.fromDeployCli, actionIds: actionIds(flags.actionId) };
  requireFull(api, 'export');
  return { kind: 'tenant', users: usersNamed(flags, io) };
}

/** export: the flags as one typed request (the directory is not looked at here). */
export function parseExportRequest(dir: string, flags: ExportFlags, io: CommandIO): ExportRequest {
  const input: ConfigInput = { env: null, paths: [dir], varFiles: [] };
  const api = environmentApi(flags.api, input);
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const source = exportSource(flags, api, io);
  const { state, ...rest } = flags;
  return {
    dir,
    source,
    state:
      state === false ? null : stateRequestOf({ ...rest, ...(typeof state === 'string' ? { state } : {}) }),
    lockTimeoutMs: lockTimeoutOf(flags),
    connection: connectionRequestOf(flags, io),
    api,
    parallelism,
  };
}
