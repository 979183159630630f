/**
 * The optional project file `tenantform.yaml` at the root of a config
 * repository, naming its environments: which directories make each one, which
 * variable files it uses, and — optionally — the tenant it targets, where its
 * credentials come from (names of environment variables, never the secrets)
 * and where its state lives. With it, `tenantform validate DIR` checks every
 * environment and the other commands take `--env NAME` (plan and apply also
 * several, or `--all-envs`).
 *
 *   environments:
 *     prod:
 *       paths: [common, prod]        # relative to the project file's directory
 *       var_files: [vars/prod.yaml]  # optional
 *       domain: prod.eu.auth0.com    # or base_url: https://…/api/v2 (optional)
 *       api: full                    # API profile: spec (default) or full (optional)
 *       credentials:                 # optional: NAMES of environment variables
 *         client_id: PROD_CLIENT_ID
 *         client_secret: PROD_CLIENT_SECRET   # or token: PROD_TOKEN
 *       state: { backend: pg, workspace: prod }   # or { path: states/prod.json }
 *       guardrails: { rules: { limit-cut: error } } # over the top-level guardrails (optional)
 *   guardrails:                      # optional: rule severities, redirect hosts (project-guardrails.ts)
 *     rules: { no-default-policy: off }
 *     redirect_hosts: [status.acme.example]
 *
 * Every problem is reported at file:line:col (ProjectError.issues).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'yaml';
import { YAML } from './yaml-lib.js';
import type { GuardrailSettings } from '../review/index.js';
import type { ConfigIssue } from './types.js';
import { checkEnvironment, checkSharedState, type Environment } from './project-entry.js';
import type { EntryContext } from './project-nodes.js';

export type {
  Environment,
  EnvironmentCredentials,
  EnvironmentState,
  EnvironmentTarget,
} from './project-entry.js';
import { checkGuardrails, mergeGuardrails } from './project-guardrails.js';

export const PROJECT_FILE = 'tenantform.yaml';

export interface Project {
  /** The project file's path, as given joined with PROJECT_FILE. */
  file: string;
  /** The project directory as given. */
  dir: string;
  environments: Environment[];
  /** The top-level `guardrails`, before an environment's own (already merged into each environment). */
  guardrails?: GuardrailSettings;
}

export class ProjectError extends Error {
  readonly code = 'PROJECT_INVALID';
  constructor(readonly issues: ConfigIssue[]) {
    super(
      issues
        .map((i) => (i.line > 0 ? `${i.file}:${i.line}:${i.col}: ${i.message}` : `${i.file}: ${i.message}`))
        .join('\n'),
    );
  }
}

/** Reads DIR/tenantform.yaml; null when DIR is not a directory or has no project file. */
export function readProject(dir: string, absoluteDir: string): Project | null {
  const abs = join(absoluteDir, PROJECT_FILE);
  if (!existsSync(absoluteDir) || !statSync(absoluteDir).isDirectory() || !existsSync(abs)) return null;
  const file = join(dir, PROJECT_FILE);
  const text = readFileSync(abs, 'utf8');
  // A multi-environment run reads the project once per environment: parse each text once.
  const key = `${abs}\0${dir}`;
  const cached = parsed.get(key);
  if (cached && cached.text === text) return cached.project;
  const project = parseProject(text, file, dir);
  parsed.set(key, { text, project });
  return project;
}

/** Projects parsed in this process, by path and directory as given; reused only for the same text. */
const parsed = new Map<string, { text: string; project: Project }>();

/** Parses the text of a project file; `dir` is the project directory as given (paths are joined to it). */
export function parseProject(text: string, file: string, dir: string): Project {
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, {
    uniqueKeys: true,
    lineCounter: lines,
    prettyErrors: false,
  });
  const issues: ConfigIssue[] = [];
  const at = (node: Node | null | undefined, message: string, code = 'PROJECT_INVALID'): void => {
    const offset = node?.range?.[0] ?? 0;
    const pos = lines.linePos(offset);
    issues.push({ file, line: pos.line, col: pos.col, message, code });
  };
  if (doc.errors.length > 0) {
    for (const err of doc.errors) {
      const pos = lines.linePos(err.pos[0]);
      issues.push({
        file,
        line: pos.line,
        col: pos.col,
        message: err.message.split('\n')[0]!,
        code: 'PROJECT_YAML',
      });
    }
    throw new ProjectError(issues);
  }
  const root = doc.contents;
  if (!YAML.isMap(root)) {
    at(root, 'must be a mapping with an "environments" key');
    throw new ProjectError(issues);
  }
  let envs: Node | null = null;
  let guardrailsNode: Node | null | undefined;
  for (const pair of root.items) {
    const key = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
    if (key === 'environments') envs = (pair.value as Node | null) ?? null;
    else if (key === 'guardrails') guardrailsNode = (pair.value as Node | null) ?? null;
    else at(pair.key as Node, `unknown key "${key}" (allowed: environments, guardrails)`);
  }
  if (!YAML.isMap(envs) || envs.items.length === 0) {
    at(envs ?? root, 'environments must map each environment name to {paths, var_files, …}');
    throw new ProjectError(issues);
  }
  const ctx: EntryContext = { dir, at };
  const guardrails =
    guardrailsNode === undefined ? undefined : checkGuardrails(guardrailsNode, 'guardrails', ctx);
  const environments: Environment[] = [];
  for (const pair of envs.items) {
    const env = checkEnvironment(pair.key as Node, pair.value as Node | null, ctx);
    if (!env) continue;
    const merged = mergeGuardrails(guardrails, env.guardrails);
    environments.push(merged ? { ...env, guardrails: merged } : env);
  }
  checkSharedState(environments, envs, ctx);
  if (issues.length > 0) {
    issues.sort((a, b) => a.line - b.line || a.col - b.col);
    throw new ProjectError(issues);
  }
  return { file, dir, environments, ...(guardrails ? { guardrails } : {}) };
}
