import { readProject, ProjectError, type Environment } from '../config/project.js';
import { absolute } from './context.js';
import { CliError, type CommandIO } from './io.js';

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
