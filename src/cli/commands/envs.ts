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
import type { Environment } from '../../config/project.js';
import type { EnvsRequest } from '../../run/local-requests.js';
import { listEnvironments } from '../../run/local-runs.js';
import { runIO } from '../context.js';
import { CliError, type CommandIO } from '../io.js';
import type { EnvsFlags } from '../definitions.js';
import { parseEnvsRequest } from '../local-requests.js';

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
  return runEnvs(parseEnvsRequest(path, flags), io);
}

/** Runs an envs request: the environments listed in the request's format; the exit code. */
async function runEnvs(request: EnvsRequest, io: CommandIO): Promise<number> {
  const { ProjectError } = await import('../../config/project.js');
  let envs: Environment[] | null;
  try {
    envs = await listEnvironments(request, runIO(io));
  } catch (err) {
    if (!(err instanceof ProjectError)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
  if (!envs) throw new CliError(`${request.path}: no tenantform.yaml with environments here`);
  io.stdout.write(envsText(envs, request));
  return 0;
}

/** The environments as the request's format prints them. */
function envsText(envs: readonly Environment[], request: EnvsRequest): string {
  if (request.format === 'github-matrix') {
    return JSON.stringify({ include: envs.map((e) => ({ environment: e.name })) }) + '\n';
  }
  if (request.format === 'json') return JSON.stringify({ environments: envs.map(asJson) }) + '\n';
  if (envs.length === 0) return request.changed ? 'No environment is affected by these files.\n' : '';
  const rows = envs.map((e) => [e.name, e.paths.join(', '), targetText(e), stateText(e)]);
  const header = ['Environment', 'Paths', 'Target', 'State'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd() + '\n';
  return line(header) + rows.map(line).join('');
}
