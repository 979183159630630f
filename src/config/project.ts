/**
 * The optional project file `tenantform.yaml` at the root of a config
 * repository, naming its environments: which directories make each one and
 * which variable files it uses. With it, `tenantform validate DIR` checks every
 * environment and the other commands take `--env NAME`.
 *
 *   environments:
 *     prod:
 *       paths: [common, prod]        # relative to the project file's directory
 *       var_files: [vars/prod.yaml]  # optional
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const PROJECT_FILE = 'tenantform.yaml';

export interface Environment {
  name: string;
  /** Config paths, joined to the project directory as the user gave it. */
  paths: string[];
  varFiles: string[];
}

export interface Project {
  /** The project file's path, as given joined with PROJECT_FILE. */
  file: string;
  environments: Environment[];
}

export class ProjectError extends Error {
  readonly code = 'PROJECT_INVALID';
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function stringList(value: unknown, where: string, file: string, required: boolean): string[] {
  if (value === undefined && !required) return [];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => typeof v === 'string' && v.length > 0)
  ) {
    throw new ProjectError(`${file}: ${where} must be a non-empty list of relative paths`);
  }
  for (const v of value as string[]) {
    if (v.startsWith('/') || v.split(/[\\/]/).includes('..')) {
      throw new ProjectError(`${file}: ${where} entry "${v}" must be a path inside the project directory`);
    }
  }
  return value as string[];
}

/** Reads DIR/tenantform.yaml; null when DIR is not a directory or has no project file. */
export function readProject(dir: string, absoluteDir: string): Project | null {
  const abs = join(absoluteDir, PROJECT_FILE);
  if (!existsSync(absoluteDir) || !statSync(absoluteDir).isDirectory() || !existsSync(abs)) return null;
  const file = join(dir, PROJECT_FILE);
  let data: unknown;
  try {
    data = parse(readFileSync(abs, 'utf8'), { uniqueKeys: true, maxAliasCount: 0 });
  } catch (err) {
    throw new ProjectError(`${file}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ProjectError(`${file}: must be a mapping with an "environments" key`);
  }
  const keys = Object.keys(data);
  const unknown = keys.filter((k) => k !== 'environments');
  if (unknown.length > 0)
    throw new ProjectError(`${file}: unknown key "${unknown[0]}" (allowed: environments)`);
  const envs = (data as { environments?: unknown }).environments;
  if (typeof envs !== 'object' || envs === null || Array.isArray(envs) || Object.keys(envs).length === 0) {
    throw new ProjectError(`${file}: environments must map each environment name to {paths, var_files}`);
  }
  const environments: Environment[] = [];
  for (const [name, value] of Object.entries(envs)) {
    if (!NAME.test(name)) throw new ProjectError(`${file}: "${name}" is not a valid environment name`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ProjectError(`${file}: environments.${name} must be a mapping with paths and var_files`);
    }
    const extra = Object.keys(value).filter((k) => k !== 'paths' && k !== 'var_files');
    if (extra.length > 0) {
      throw new ProjectError(
        `${file}: environments.${name} has unknown key "${extra[0]}" (allowed: paths, var_files)`,
      );
    }
    const v = value as { paths?: unknown; var_files?: unknown };
    environments.push({
      name,
      paths: stringList(v.paths, `environments.${name}.paths`, file, true).map((p) => join(dir, p)),
      varFiles: stringList(v.var_files, `environments.${name}.var_files`, file, false).map((p) =>
        join(dir, p),
      ),
    });
  }
  return { file, environments };
}
