/**
 * The commands that work on this machine made into typed requests
 * (src/run/local-requests.ts): the state commands, show, init, fmt, envs and
 * emulator. Each command's flags, with tenantform.yaml, are parsed and
 * checked here once; every problem with a flag is said here, naming it, in
 * the order the commands always checked them.
 */
import { existsSync, statSync } from 'node:fs';
import type {
  EnvsRequest,
  FmtRequest,
  ForceUnlockRequest,
  InitRequest,
  LocatedState,
  ShowRequest,
  StateListRequest,
  StateMigrateRequest,
  StateRepairRequest,
  StateRescueRequest,
  StateRmRequest,
  StateShowRequest,
} from '../run/local-requests.js';
import type { StateRequest } from '../run/requests.js';
import { MAX_WINDOW_SEC } from '../emulator/index.js';
import type { EmulatorCommandOptions } from './commands/emulator.js';
import {
  absolute,
  lockTimeoutOf,
  parseCount,
  parseNumber,
  parseRate,
  stateRequestOf,
  type StateFlags,
} from './context.js';
import type {
  EmulatorFlags,
  EnvsFlags,
  FmtFlags,
  ForceUnlockFlags,
  InitFlags,
  ShowFlags,
  StateListFlags,
  StateMigrateFlags,
  StateRepairFlags,
  StateRescueFlags,
  StateRmFlags,
  StateShowFlags,
} from './definitions.js';
import { resolveInputs } from './inputs.js';
import { CliError, type CommandIO } from './io.js';

/** The state PATH and --env locate, with the state flags. */
export function locatedStateOf(
  path: string,
  flags: StateFlags & { env?: string },
  io: CommandIO,
): LocatedState {
  return { input: resolveInputs([path], flags.env, [], io, 'one')[0]!, state: stateRequestOf(flags) };
}

/** The address in its canonical spelling; throws AddressError naming what is wrong. */
async function canonicalAddress(address: string): Promise<string> {
  const { parseAddress, formatAddress } = await import('../resources/index.js');
  const parsed = parseAddress(address);
  return formatAddress(parsed.kind, parsed.identity);
}

export function parseStateListRequest(path: string, flags: StateListFlags, io: CommandIO): StateListRequest {
  return { located: locatedStateOf(path, flags, io) };
}

export async function parseStateShowRequest(
  address: string,
  path: string,
  flags: StateShowFlags,
  io: CommandIO,
): Promise<StateShowRequest> {
  const canonical = await canonicalAddress(address);
  return { located: locatedStateOf(path, flags, io), address: canonical };
}

export async function parseStateRmRequest(
  address: string,
  path: string,
  flags: StateRmFlags,
  io: CommandIO,
): Promise<StateRmRequest> {
  const canonical = await canonicalAddress(address);
  const located = locatedStateOf(path, flags, io);
  return { located, address: canonical, lockTimeoutMs: lockTimeoutOf(flags) };
}

/** state rescue: the file named is read first (a missing or malformed one is said before the rest). */
export async function parseStateRescueRequest(
  file: string,
  path: string,
  flags: StateRescueFlags,
  io: CommandIO,
): Promise<StateRescueRequest> {
  const { readRescueFile } = await import('../state/index.js');
  const rescue = await readRescueFile(absolute(file, io));
  return { rescue, located: locatedStateOf(path, flags, io), lockTimeoutMs: lockTimeoutOf(flags) };
}

export function parseStateRepairRequest(
  path: string,
  flags: StateRepairFlags,
  io: CommandIO,
): StateRepairRequest {
  return { located: locatedStateOf(path, flags, io), lockTimeoutMs: lockTimeoutOf(flags) };
}

/** The state file PATH names: a file that is not YAML config (e.g. state.json), or its .lock; else null. */
function stateFileArgument(path: string, io: CommandIO): string | null {
  const abs = absolute(path, io);
  if (abs.endsWith('.lock') && existsSync(abs)) return abs.slice(0, -'.lock'.length);
  if (existsSync(abs) && statSync(abs).isFile() && !/\.ya?ml$/i.test(abs)) return abs;
  return null;
}

/** force-unlock: PATH may name the state file itself (or its .lock) instead of a config path. */
export function parseForceUnlockRequest(
  path: string,
  flags: ForceUnlockFlags,
  io: CommandIO,
): ForceUnlockRequest {
  const stateFile = flags.state || (flags.backend ?? 'file') !== 'file' ? null : stateFileArgument(path, io);
  const located = stateFile
    ? locatedStateOf('.', { ...flags, state: stateFile }, io)
    : locatedStateOf(path, flags, io);
  return { located, force: flags.force === true };
}

/** A state of `state migrate`: file:PATH, or pg[:WORKSPACE] with the --backend-config settings. */
function migrateSpec(spec: string, flags: StateMigrateFlags): StateRequest {
  if (spec.startsWith('file:')) return { file: spec.slice(5), backend: 'file' };
  if (spec === 'pg' || spec.startsWith('pg:')) {
    const workspace = spec.startsWith('pg:') ? spec.slice(3) : 'default';
    return { backend: 'pg', backendConfig: flags.backendConfig, workspace };
  }
  throw new CliError(`"${spec}" is not a state location; use file:PATH or pg[:WORKSPACE]`);
}

export function parseStateMigrateRequest(flags: StateMigrateFlags): StateMigrateRequest {
  return {
    from: migrateSpec(flags.from, flags),
    to: migrateSpec(flags.to, flags),
    force: flags.force ?? false,
    lockTimeoutMs: lockTimeoutOf(flags),
  };
}

/** show: a saved plan (`isPlanFile`), else the state PATH locates. */
export function parseShowRequest(
  target: string | undefined,
  flags: ShowFlags,
  io: CommandIO,
  isPlanFile: (path: string) => boolean,
): ShowRequest {
  if (target !== undefined && !existsSync(absolute(target, io))) {
    throw new CliError(
      `${target} does not exist: show takes a plan file saved by plan --out, or a config path locating the state`,
    );
  }
  if (target !== undefined && isPlanFile(absolute(target, io))) {
    const output = { format: flags.format, verbose: flags.verbose === true };
    return { kind: 'plan-file', file: target, state: stateRequestOf(flags), output };
  }
  if (flags.format === 'terraform-json') {
    throw new CliError(
      `--format terraform-json shows a plan file saved by plan --out; ${target ?? '.'} is not one (for the state, use --format json)`,
    );
  }
  return {
    kind: 'state',
    located: locatedStateOf(target ?? '.', flags, io),
    output: { format: flags.format },
  };
}

export function parseInitRequest(dir: string, flags: InitFlags, io: CommandIO): InitRequest {
  return { given: dir, dir: absolute(dir || '.', io), force: flags.force === true };
}

export function parseFmtRequest(pathArgs: string[], flags: FmtFlags): FmtRequest {
  return {
    paths: pathArgs.length > 0 ? pathArgs : ['.'],
    check: flags.check === true,
    diff: flags.diff === true,
  };
}

export function parseEnvsRequest(path: string, flags: EnvsFlags): EnvsRequest {
  // --changed with no file: none changed, so none is affected.
  const changed = flags.changed === true ? [] : (flags.changed ?? null);
  return { path, changed, format: flags.format };
}

/** The largest bucket the emulator takes (--burst, and --rate-limit, which sets the burst without it). */
const MAX_BURST = 1_000_000;

/**
 * The emulator's flags with their numbers parsed (a CliError names a bad
 * one); emulatorRequest (commands/emulator.ts) checks the rest into an
 * EmulatorRequest.
 */
export function parseEmulatorSettings(flags: EmulatorFlags): EmulatorCommandOptions {
  return {
    host: flags.host,
    port: parseCount(flags.port, '--port', 0, 65535) ?? 0,
    // The rate is bounded as the burst is: without --burst, the burst is the rate.
    rateLimit: parseRate(flags.rateLimit, '--rate-limit', MAX_BURST),
    burst: parseCount(flags.burst, '--burst', 1, MAX_BURST),
    rateLimitWindow: parseCount(flags.rateLimitWindow, '--rate-limit-window', 1, MAX_WINDOW_SEC),
    rateLimitModel: flags.rateLimitModel,
    rateLimitTier: flags.rateLimitTier,
    rateLimitScope: flags.rateLimitScope,
    clockSkew: parseNumber(flags.clockSkew, '--clock-skew'),
    dateHeader: flags.dateHeader,
    frontEndOffset: parseNumber(flags.frontEndOffset, '--front-end-offset'),
    latency: flags.latency,
    faults: flags.faults,
    users: flags.users,
    data: flags.data,
    seed: flags.seed,
    json: flags.json ?? false,
    tenants: flags.tenants,
    tls: flags.tls ?? false,
    api: flags.api,
    logs: flags.logs,
    traffic: flags.traffic,
    trafficSeed: parseCount(flags.trafficSeed, '--traffic-seed', 0, 4_294_967_295),
  };
}
