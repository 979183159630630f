/**
 * What plan, apply, import and validate read: PATH arguments and --env turned
 * into config inputs (resolveInputs) and an environment's state, target and
 * credentials (environment*), --var flags (parseVarArgs), and the config
 * loaded from them (loadConfigInput, loadDesiredOrReport).
 */
import type { ApiProfile, DesiredResource } from '../resources/index.js';
import { loadConfig, VARIABLE_NAME, type LoadResult } from '../config/index.js';
import { readProject, type Environment, type Project } from '../config/project.js';
import { absolute, runIO, stateRequestOf, type StateFlags } from './context.js';
import type { StateStore } from '../state/types.js';
import { flagIssue, reportIssues } from './config-issues.js';
import { CliError, type CommandIO } from './io.js';
import type { StateScope } from '../run/state-location.js';
import type { ConfigInput } from '../run/requests.js';
import * as run from '../run/state-store.js';

export interface VarFlags {
  /** --var values, each NAME=VALUE. */
  vars: string[];
  /** --var-file paths. */
  varFiles: string[];
}

export type { ConfigInput };

/** --env as commander hands it: one name, several (plan and apply), or none. */
export type EnvSelection = string | readonly string[] | undefined;

/** The project in the single PATH, or null; a ProjectError carries every problem at file:line:col. */
function readProjectOrFail(paths: readonly string[], io: CommandIO): Project | null {
  return paths.length === 1 ? readProject(paths[0]!, absolute(paths[0]!, io)) : null;
}

/**
 * Turns PATH arguments and --env into config inputs. A single directory
 * holding tenantform.yaml is a project: `--env NAME` picks one environment
 * (plan and apply take several); without it, `all` gives every environment
 * (validate, and plan/apply with --all-envs) and otherwise the command must
 * be told which one. Flag --var-file files come after the environment's own,
 * so they win.
 */
export function resolveInputs(
  pathArgs: readonly string[],
  env: EnvSelection,
  varFiles: readonly string[],
  io: CommandIO,
  mode: 'one' | 'all',
): ConfigInput[] {
  const paths = pathArgs.length > 0 ? [...pathArgs] : ['.'];
  const names = env === undefined ? [] : typeof env === 'string' ? [env] : [...new Set(env)];
  const project = readProjectOrFail(paths, io);
  if (!project) {
    if (names.length > 0)
      throw new CliError(`--env ${names[0]}: no tenantform.yaml with environments in ${paths.join(', ')}`);
    return [{ env: null, paths, varFiles: [...varFiles] }];
  }
  const toInput = (e: Environment): ConfigInput => ({
    env: e.name,
    paths: e.paths,
    varFiles: [...e.varFiles, ...varFiles],
    environment: e,
  });
  const known = project.environments.map((e) => e.name).join(', ');
  if (names.length > 0) {
    return names.map((name) => {
      const found = project.environments.find((e) => e.name === name);
      if (!found)
        throw new CliError(`--env ${name}: ${project.file} has no such environment (it has: ${known})`);
      return toInput(found);
    });
  }
  // A project with one environment needs no --env.
  if (mode === 'all' || project.environments.length === 1) return project.environments.map(toInput);
  throw new CliError(`${project.file} defines environments (${known}); choose one with --env NAME`);
}

/** What the default state of an input depends on besides its paths; see stateScopeOf in src/run. */
export async function stateScopeOf(
  input: ConfigInput,
  flags: { domain?: string; baseUrl?: string },
  io: CommandIO,
): Promise<StateScope> {
  return run.stateScopeOf(input, { domain: flags.domain, baseUrl: flags.baseUrl }, runIO(io));
}

/**
 * The state store of one config input: the flags, else its environment's
 * state, else the default place for its last path, environment and target.
 */
export async function openInputStore(
  flags: StateFlags & { domain?: string; baseUrl?: string },
  input: ConfigInput,
  io: CommandIO,
): Promise<StateStore> {
  const target = { domain: flags.domain, baseUrl: flags.baseUrl };
  return run.openInputStore(stateRequestOf(flags), target, input, runIO(io));
}

/** The API profile of a run: --api when given, else the environment's `api:`, else spec. */
export function environmentApi(flag: ApiProfile | undefined, input: ConfigInput): ApiProfile {
  return flag ?? input.environment?.api ?? 'spec';
}

/** Target flags for one environment: its domain or base_url unless --domain or --base-url is given. */
export function environmentTargetFlags<F extends { domain?: string; baseUrl?: string }>(
  flags: F,
  input: ConfigInput,
): F {
  const t = input.environment?.target;
  if (!t || flags.domain !== undefined || flags.baseUrl !== undefined) return flags;
  return { ...flags, domain: t.domain, baseUrl: t.baseUrl };
}

/** Parses repeated --var NAME=VALUE flags (a later one wins). Throws CliError naming the bad flag. */
export function parseVarArgs(list: readonly string[]): Record<string, string> {
  const vars = new Map<string, string>();
  for (const item of list) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (eq < 0)
      throw new CliError(`--var "${name}" has no value: write --var NAME=VALUE`, 1, 'VAR_ARG_INVALID');
    if (!VARIABLE_NAME.test(name)) {
      throw new CliError(
        `--var "${name}=…": "${name}" is not a variable name (letters, digits and _, not starting with a digit)`,
        1,
        'VAR_ARG_INVALID',
      );
    }
    vars.set(name, item.slice(eq + 1));
  }
  return Object.fromEntries(vars);
}

/** Loads the config at `path` with the --var/--var-file flags; a malformed --var throws CliError. */
export async function loadConfigInput(
  path: string | readonly string[],
  opts: VarFlags,
  io: CommandIO,
): Promise<LoadResult> {
  return loadParsed(path, { vars: parseVarArgs(opts.vars), varFiles: opts.varFiles }, io);
}

/** Loads the config at `path` with variables already parsed and variable files. */
async function loadParsed(
  path: string | readonly string[],
  opts: { vars: Record<string, string>; varFiles: readonly string[] },
  io: CommandIO,
): Promise<LoadResult> {
  const { vars } = opts;
  const result = await loadConfig(path, {
    vars,
    varFiles: opts.varFiles,
    env: io.env,
    cwd: io.cwd,
    ...(io.signal ? { signal: io.signal } : {}),
  });
  return { ...result, issues: result.issues.map(flagIssue) };
}

/**
 * For plan, apply and import: loads the config with the same --var/--var-file
 * flags; on any issue prints them as text on stderr and returns null (the
 * caller exits 1). A malformed --var throws CliError.
 */
export async function loadDesiredOrReport(
  path: string | readonly string[],
  opts: VarFlags | { vars: Record<string, string>; varFiles: readonly string[] },
  io: CommandIO,
): Promise<DesiredResource[] | null> {
  const result = Array.isArray(opts.vars)
    ? await loadConfigInput(path, opts as VarFlags, io)
    : await loadParsed(path, opts as { vars: Record<string, string>; varFiles: readonly string[] }, io);
  if (result.issues.length > 0) {
    reportIssues(result.issues, io);
    return null;
  }
  return result.desired;
}
