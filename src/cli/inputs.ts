/**
 * What plan, apply, import and validate read: PATH arguments and --env turned
 * into config paths and variable files (resolveInputs), --var flags
 * (parseVarArgs), and the config loaded from them (loadConfigInput,
 * loadDesiredOrReport).
 */
import type { DesiredResource } from '../resources/index.js';
import { loadConfig, VARIABLE_NAME, type LoadResult } from '../config/index.js';
import { readProject, ProjectError, type Environment } from '../config/project.js';
import { absolute } from './context.js';
import { reportIssues } from './config-issues.js';
import { CliError, type CommandIO } from './io.js';

export interface VarFlags {
  /** --var values, each NAME=VALUE. */
  vars: string[];
  /** --var-file paths. */
  varFiles: string[];
}

/** What one run of the loader reads: config paths and variable files, for one environment or none. */
export interface ConfigInput {
  /** Environment name from tenantform.yaml, or null for plain paths. */
  env: string | null;
  paths: string[];
  varFiles: string[];
}

/**
 * Turns PATH arguments and --env into config inputs. A single directory
 * holding tenantform.yaml is a project: `--env NAME` picks one environment;
 * without it, `all` gives every environment (validate) and otherwise the
 * command must be told which one. Flag --var-file files come after the
 * environment's own, so they win.
 */
export function resolveInputs(
  pathArgs: readonly string[],
  env: string | undefined,
  varFiles: readonly string[],
  io: CommandIO,
  mode: 'one' | 'all',
): ConfigInput[] {
  const paths = pathArgs.length > 0 ? [...pathArgs] : ['.'];
  let project;
  try {
    project = paths.length === 1 ? readProject(paths[0]!, absolute(paths[0]!, io)) : null;
  } catch (err) {
    if (err instanceof ProjectError) throw new CliError(err.message, 1, err.code);
    throw err;
  }
  if (!project) {
    if (env) throw new CliError(`--env ${env}: no tenantform.yaml with environments in ${paths.join(', ')}`);
    return [{ env: null, paths, varFiles: [...varFiles] }];
  }
  const toInput = (e: Environment): ConfigInput => ({
    env: e.name,
    paths: e.paths,
    varFiles: [...e.varFiles, ...varFiles],
  });
  if (env) {
    const found = project.environments.find((e) => e.name === env);
    if (!found) {
      throw new CliError(
        `--env ${env}: ${project.file} has no such environment (it has: ${project.environments.map((e) => e.name).join(', ')})`,
      );
    }
    return [toInput(found)];
  }
  if (mode === 'all') return project.environments.map(toInput);
  throw new CliError(
    `${project.file} defines environments (${project.environments.map((e) => e.name).join(', ')}); choose one with --env NAME`,
  );
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
  const vars = parseVarArgs(opts.vars);
  return loadConfig(path, { vars, varFiles: opts.varFiles, env: io.env, cwd: io.cwd });
}

/**
 * For plan, apply and import: loads the config with the same --var/--var-file
 * flags; on any issue prints them as text on stderr and returns null (the
 * caller exits 1). A malformed --var throws CliError.
 */
export async function loadDesiredOrReport(
  path: string | readonly string[],
  opts: VarFlags,
  io: CommandIO,
): Promise<DesiredResource[] | null> {
  const result = await loadConfigInput(path, opts, io);
  if (result.issues.length > 0) {
    reportIssues(result.issues, io);
    return null;
  }
  return result.desired;
}
