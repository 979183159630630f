/**
 * tenantform envs [PATH] [--format text|json|github-matrix] [--changed FILE...]
 *
 * Lists the environments of the tenantform.yaml project in PATH (default .):
 * text, a table; json, every entry with its target, credential variable names
 * and state; github-matrix, one line {"include":[{"environment":"dev"},…]} for
 * a GitHub Actions job matrix. With --changed, only the environments the
 * changed files affect: a file under one of an environment's paths, one of its
 * var_files, or tenantform.yaml itself (which affects all). Changed files are
 * relative to the current directory, as `git diff --name-only` prints them
 * from the repository root.
 *
 * Exit codes: 0 listed (also when none is affected); 1 no project, or a
 * broken tenantform.yaml (every problem at file:line:col).
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { Environment, Project } from '../../config/project.js';
import { absolute } from '../context.js';
import { CliError, type CommandIO } from '../io.js';
import type { EnvsFlags } from '../definitions.js';

/** True when `file` is `path` or inside it (both absolute). */
function within(file: string, path: string): boolean {
  const rel = relative(path, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The environments a set of changed files affects, in project order. */
export function affectedEnvironments(
  project: Project,
  changed: readonly string[],
  io: CommandIO,
): Environment[] {
  const files = changed.map((f) => absolute(f, io));
  const projectFile = absolute(project.file, io);
  if (files.includes(projectFile)) return project.environments;
  return project.environments.filter((env) =>
    files.some(
      (file) =>
        env.paths.some((p) => within(file, absolute(p, io))) ||
        env.varFiles.some((v) => absolute(v, io) === file),
    ),
  );
}

function targetText(env: Environment): string {
  return env.target?.baseUrl ?? env.target?.domain ?? '-';
}

function stateText(env: Environment): string {
  const s = env.state;
  if (!s) return 'default file';
  return s.backend === 'pg' ? `pg workspace ${s.workspace}` : s.path ? `file ${s.path}` : 'default file';
}

function asJson(env: Environment) {
  const c = env.credentials;
  return {
    name: env.name,
    paths: env.paths,
    var_files: env.varFiles,
    target: env.target
      ? env.target.baseUrl
        ? { base_url: env.target.baseUrl }
        : { domain: env.target.domain }
      : null,
    // Only when tenantform.yaml names one: an environment without `api:` is spec.
    ...(env.api ? { api: env.api } : {}),
    credentials: c
      ? {
          ...(c.token ? { token: c.token } : {}),
          ...(c.clientId ? { client_id: c.clientId } : {}),
          ...(c.clientSecret ? { client_secret: c.clientSecret } : {}),
        }
      : null,
    state: env.state ?? null,
  };
}

export async function envsAction(
  path: string,
  flags: EnvsFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { readProject, ProjectError } = await import('../../config/project.js');
  let project: Project | null;
  try {
    project = readProject(path, absolute(path, io));
  } catch (err) {
    if (!(err instanceof ProjectError)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
  if (!project) throw new CliError(`${path}: no tenantform.yaml with environments here`);
  const changed = flags.changed === true ? [] : flags.changed;
  const envs = changed ? affectedEnvironments(project, changed, io) : project.environments;
  if (flags.format === 'github-matrix') {
    io.stdout.write(JSON.stringify({ include: envs.map((e) => ({ environment: e.name })) }) + '\n');
  } else if (flags.format === 'json') {
    io.stdout.write(JSON.stringify({ environments: envs.map(asJson) }) + '\n');
  } else if (envs.length === 0) {
    io.stdout.write(changed ? 'No environment is affected by these files.\n' : '');
  } else {
    const rows = envs.map((e) => [e.name, e.paths.join(', '), targetText(e), stateText(e)]);
    const header = ['Environment', 'Paths', 'Target', 'State'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd() + '\n';
    io.stdout.write(line(header) + rows.map(line).join(''));
  }
  return 0;
}
