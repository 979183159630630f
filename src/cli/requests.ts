/**
 * The command line made into typed requests (src/run/requests.ts): each
 * command's flags, with the process environment and tenantform.yaml, parsed
 * and checked here once, in one pass; what runs the command takes the
 * request and never sees a flag. Every problem with a flag is said here,
 * naming it.
 */
import type { ApiProfile } from '../resources/index.js';
import type {
  RefreshRequest,
  ApplyRequest,
  ChangeSource,
  ConfigInput,
  ConnectionRequest,
  FleetEnvironment,
  FleetRequest,
  PlanRequest,
  Selection,
  TargetRequest,
} from '../run/requests.js';
import { environmentState, environmentTarget } from '../run/state-store.js';
import {
  absolute,
  lockTimeoutOf,
  pacingOptions,
  parseCount,
  stateRequestOf,
  type PacingFlags,
} from './context.js';
import type { ApplyFlags, PlanFlags, RefreshFlags } from './definitions.js';
import type { FleetFlags } from './fleet-flags.js';
import { environmentApi, parseVarArgs, resolveInputs } from './inputs.js';
import { CliError, type CommandIO } from './io.js';

/** apply's flags as apply and destroy run them: destroy has no --replace and plans the removal of everything. */
export type ApplyRunFlags = Omit<ApplyFlags, 'replace' | 'env' | 'allEnvs' | 'envParallelism'> &
  Partial<Pick<ApplyFlags, 'allEnvs' | 'envParallelism'>> & {
    env?: string | string[];
    replace?: string[];
    destroy?: boolean;
  };

/** The flags that say how to reach the tenant. */
export interface ConnectionFlags extends PacingFlags {
  domain?: string;
  baseUrl?: string;
  tokenFile?: string;
  audience?: string;
  debug?: boolean;
  reassignTenant?: boolean;
}

/** The target --domain and --base-url name (empty: none). */
function namedTarget(flags: Pick<ConnectionFlags, 'domain' | 'baseUrl'>): TargetRequest {
  return {
    ...(flags.domain !== undefined ? { domain: flags.domain } : {}),
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
  };
}

/**
 * How to reach the tenant, from the flags (and `input`'s environment, whose
 * target serves when the flags name none). Throws a CliError naming a bad
 * pacing flag.
 */
export function connectionRequestOf(
  flags: ConnectionFlags,
  io: CommandIO,
  input?: ConfigInput,
): ConnectionRequest {
  const named = namedTarget(flags);
  return {
    named,
    target: input ? environmentTarget(named, input) : named,
    ...(flags.audience !== undefined ? { audience: flags.audience } : {}),
    ...(flags.tokenFile ? { tokenFile: absolute(flags.tokenFile, io) } : {}),
    debug: flags.debug === true,
    pacing: pacingOptions(flags),
    reassignTenant: flags.reassignTenant === true,
  };
}

/** --target and --replace, and whether the plan removes everything. */
function selectionOf(flags: { target?: string[]; replace?: string[]; destroy?: boolean }): Selection {
  return { targets: flags.target ?? [], replace: flags.replace ?? [], destroy: flags.destroy === true };
}

/**
 * A saved plan is a JSON object with format_version and changes; see
 * looksLikePlanFile in commands/apply.ts. The first PATH that is one.
 */
type PlanFileTest = (path: string) => boolean;

/** --json needs --auto-approve (the plan is not shown for a question) and one environment (`several`: more were asked for). */
export function checkJsonFlags(flags: Pick<ApplyRunFlags, 'json' | 'autoApprove'>, several: boolean): void {
  if (flags.json && !flags.autoApprove) {
    throw new CliError('--json needs --auto-approve: the plan is printed as JSON, not shown for a question');
  }
  if (flags.json && several) {
    throw new CliError('--json applies one environment at a time: give one --env');
  }
}

/** What a saved plan cannot take: destroy, a selection, --refresh (the plan decides). */
function refusePlanFileFlags(flags: ApplyRunFlags): void {
  if (flags.destroy)
    throw new CliError(
      'destroy takes config paths, not a plan file; to apply a saved destroy plan use tenantform apply PLANFILE',
    );
  if ((flags.target?.length ?? 0) > 0 || (flags.replace?.length ?? 0) > 0) {
    throw new CliError(
      'a saved plan is applied exactly as it was made: give --target and --replace to tenantform plan --out instead',
    );
  }
  if (flags.refresh) {
    throw new CliError(
      'a saved plan is applied exactly as it was made: --refresh takes config paths (or run tenantform refresh before plan --out)',
    );
  }
}

/** Refuses what a saved plan cannot take: other paths, and flags that only make sense for a config. */
function refuseConfigInputs(planArg: string, pathArgs: readonly string[], flags: ApplyRunFlags): void {
  if (pathArgs.length > 1) {
    const others = pathArgs.filter((p) => p !== planArg).join(', ');
    throw new CliError(
      `${planArg} is a saved plan, so apply takes no config path besides it (got ${others}); apply either the plan file or the config`,
    );
  }
  const given: string[] = [];
  if (flags.var.length > 0) given.push('--var');
  if (flags.varFile.length > 0) given.push('--var-file');
  if (flags.allEnvs) given.push('--all-envs');
  if (typeof flags.env === 'object' && flags.env.length > 1) given.push('several --env');
  if (given.length > 0) {
    throw new CliError(
      `${given.join(' and ')} cannot be used when applying a saved plan: ${planArg} already holds the values it was made with, so make the plan again with them instead`,
    );
  }
}

/** The --env environment of ./tenantform.yaml a saved plan is applied with (its target, credentials, state), or none. */
function planFileEnvironment(flags: ApplyRunFlags, io: CommandIO): ConfigInput {
  const env = typeof flags.env === 'object' ? flags.env[0] : flags.env;
  if (env === undefined) return { env: null, paths: ['.'], varFiles: [] };
  return resolveInputs(['.'], env, [], io, 'one')[0]!;
}

/** Where apply takes its changes from, with the API profile the command or the environment names. */
function applySource(
  pathArgs: string[],
  flags: ApplyRunFlags,
  io: CommandIO,
  isPlanFile: PlanFileTest,
): { source: ChangeSource; api: ApiProfile | undefined } {
  const planArg = pathArgs.find((p) => isPlanFile(absolute(p, io)));
  if (planArg !== undefined) {
    refusePlanFileFlags(flags);
    refuseConfigInputs(planArg, pathArgs, flags);
    const input = planFileEnvironment(flags, io);
    // Without --api the plan's own profile is used.
    return { source: { kind: 'plan-file', file: planArg, input }, api: flags.api ?? input.environment?.api };
  }
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  // A destroy plans the removal of everything recorded: the config only locates the state.
  const vars = flags.destroy ? null : parseVarArgs(flags.var);
  return { source: { kind: 'config', input, vars }, api: environmentApi(flags.api, input) };
}

/**
 * apply and destroy: the flags as one typed request, every flag checked
 * (in the order apply always checked them). `isPlanFile` tells a saved plan
 * from a config path.
 */
export function parseApplyRequest(
  pathArgs: string[],
  flags: ApplyRunFlags,
  io: CommandIO,
  isPlanFile: PlanFileTest,
): ApplyRequest {
  checkJsonFlags(flags, false);
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const formerName = flags.permissionBatchSize !== undefined && flags.permissionBatchSize === flags.batchSize;
  const batchSize =
    parseCount(flags.batchSize, formerName ? '--permission-batch-size' : '--batch-size', 1, 1000) ?? 100;
  const { source, api } = applySource(pathArgs, flags, io, isPlanFile);
  return {
    command: flags.destroy ? 'destroy' : 'apply',
    source,
    state: environmentState(stateRequestOf(flags), source.input),
    lockTimeoutMs: lockTimeoutOf(flags),
    connection: connectionRequestOf(flags, io, source.input),
    api,
    selection: selectionOf(flags),
    refresh: flags.refresh === true,
    strict: flags.strict === true,
    skipBlocked: flags.skipBlocked === true,
    autoApprove: flags.autoApprove === true,
    parallelism,
    batchSize,
    output: { json: flags.json === true, verbose: flags.verbose === true },
  };
}

/**
 * plan: the flags as one typed request, every flag checked (in the order
 * plan always checked them). `requireFull` refuses --refresh under the spec
 * profile.
 */
export function parsePlanRequest(
  pathArgs: string[],
  flags: PlanFlags,
  io: CommandIO,
  requireFull: (profile: ApiProfile, what: string) => void,
): PlanRequest {
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  const api = environmentApi(flags.api, input);
  if (flags.refresh) {
    requireFull(api, 'plan --refresh');
    if (flags.out)
      throw new CliError(
        'a saved plan is checked against the stored state, so --refresh cannot be saved with --out: run tenantform refresh first (it records what is live), then plan --out',
      );
  }
  return {
    input,
    // A destroy plan removes what the state records: the config only locates the state.
    vars: flags.destroy ? null : parseVarArgs(flags.var),
    state: environmentState(stateRequestOf(flags), input),
    connection: connectionRequestOf(flags, io, input),
    api,
    selection: selectionOf(flags),
    refresh: flags.refresh === true,
    strict: flags.strict === true,
    ...(flags.out !== undefined ? { out: flags.out } : {}),
    detailedExitcode: flags.detailedExitcode === true,
    ...(flags.simulate !== undefined ? { simulate: flags.simulate } : {}),
    output: { format: flags.format, verbose: flags.verbose === true },
  };
}

/**
 * refresh: the flags as one typed request, every flag checked (in the order
 * refresh always checked them). `requireFull` refuses the spec profile, which
 * has no read operation.
 */
export function parseRefreshRequest(
  pathArgs: string[],
  flags: RefreshFlags,
  io: CommandIO,
  requireFull: (profile: ApiProfile, what: string) => void,
): RefreshRequest {
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  requireFull(environmentApi(flags.api, input), 'refresh');
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  return {
    input,
    vars: parseVarArgs(flags.var),
    state: environmentState(stateRequestOf(flags), input),
    lockTimeoutMs: lockTimeoutOf(flags),
    connection: connectionRequestOf(flags, io, input),
    parallelism,
  };
}

/** Flags that name one state, target or file cannot serve several environments. */
function refuseSingleTargetFlags(flags: FleetFlags): void {
  const single: [keyof FleetFlags, string][] = [
    ['state', '--state'],
    ['workspace', '--workspace'],
    ['domain', '--domain'],
    ['baseUrl', '--base-url'],
    ['tokenFile', '--token-file'],
    ['out', '--out'],
  ];
  for (const [key, flag] of single) {
    if (flags[key] !== undefined) {
      throw new CliError(
        `${flag} names one ${key === 'out' ? 'plan file' : 'state or tenant'}, so it cannot serve several environments: ` +
          `set it per environment in tenantform.yaml, or run one environment with --env NAME`,
      );
    }
  }
  if (flags.allEnvs && flags.env !== undefined && (typeof flags.env === 'string' || flags.env.length > 0)) {
    throw new CliError('give either --env NAME (repeatable) or --all-envs, not both');
  }
}

/** What parsing one environment's plan or apply request needs besides its flags. */
export interface FleetParsers {
  requireFull: (profile: ApiProfile, what: string) => void;
  isPlanFile: PlanFileTest;
}

/**
 * One environment's request: the command's flags with that environment
 * alone, parsed as the command parses them; the problem, if they are
 * refused, is that environment's failure.
 */
function environmentOf(
  command: 'plan' | 'apply',
  projectDir: string,
  input: ConfigInput,
  flags: FleetFlags,
  io: CommandIO,
  parsers: FleetParsers,
): FleetEnvironment {
  const name = input.env!;
  // Plan always learns whether there are changes; the whole run's exit code decides what to make of it.
  // `flags` are all of plan's or apply's (main.ts hands the command's own).
  const envFlags: unknown = { ...flags, env: [name], allEnvs: false, detailedExitcode: true };
  try {
    return command === 'plan'
      ? {
          name,
          input,
          command,
          request: parsePlanRequest([projectDir], envFlags as PlanFlags, io, parsers.requireFull),
        }
      : {
          name,
          input,
          command,
          request: parseApplyRequest([projectDir], envFlags as ApplyRunFlags, io, parsers.isPlanFile),
        };
  } catch (problem) {
    return { name, input, command, problem };
  }
}

/**
 * plan or apply with several environments (--env A --env B, --all-envs): the
 * flags refused with several, the environments, and each one's request.
 */
export function parseFleetRequest(
  command: 'plan' | 'apply',
  pathArgs: string[],
  flags: FleetFlags,
  io: CommandIO,
  parsers: FleetParsers,
): FleetRequest {
  refuseSingleTargetFlags(flags);
  const parallelism = parseCount(flags.envParallelism ?? '4', '--env-parallelism', 1, 256) ?? 4;
  const inputs = resolveInputs(pathArgs, flags.allEnvs ? undefined : flags.env, [], io, 'all');
  if (inputs.some((i) => i.env === null)) {
    throw new CliError(`--all-envs needs a directory with a tenantform.yaml that names environments`);
  }
  const projectDir = pathArgs.length > 0 ? pathArgs[0]! : '.';
  const environments = inputs.map((input) => environmentOf(command, projectDir, input, flags, io, parsers));
  return { command, environments, parallelism };
}
