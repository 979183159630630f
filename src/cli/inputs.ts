/**
 * What the commands that read a config take from the command line: PATH
 * arguments and --env turned into config inputs (resolveInputs), an
 * environment's API profile and target (environment*), and --var flags
 * (parseVarArgs). The config itself is loaded by the runs (src/run).
 */
import type { ApiProfile } from '../resources/index.js';
import { VARIABLE_NAME } from '../config/index.js';
import { readProject, type Environment, type Project } from '../config/project.js';
import { absolute } from './context.js';
import { CliError, type CommandIO } from './io.js';
import type { ConfigInput } from '../run/requests.js';

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
