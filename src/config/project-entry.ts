/**
 * Checks one environment entry of tenantform.yaml, node by node, so that every
 * problem has a line and column. A credentials value is never repeated in a
 * message: a user may have pasted a secret where a variable name belongs.
 */
import { join } from 'node:path';
import type { Node, YAMLMap } from 'yaml';
import { YAML } from './yaml-lib.js';
import { isApiProfile, type ApiProfile } from '../resources/index.js';
import type { GuardrailSettings } from '../review/index.js';
import { checkGuardrails } from './project-guardrails.js';
import { entries, stringValue, type EntryContext } from './project-nodes.js';

/** Where an environment's API calls go; from `domain` or `base_url`. */
export interface EnvironmentTarget {
  domain?: string;
  baseUrl?: string;
}

/** Names of the environment variables that hold an environment's credentials. */
export interface EnvironmentCredentials {
  token?: string;
  clientId?: string;
  clientSecret?: string;
}

export type EnvironmentState = { backend: 'file'; path?: string } | { backend: 'pg'; workspace: string };

export interface Environment {
  name: string;
  /** Config paths, joined to the project directory as the user gave it. */
  paths: string[];
  varFiles: string[];
  target?: EnvironmentTarget;
  /** The tenant's API profile (`api:`); absent means spec unless --api says otherwise. */
  api?: ApiProfile;
  credentials?: EnvironmentCredentials;
  /** A file path here is joined to the project directory as the user gave it. */
  state?: EnvironmentState;
  /** The guardrail settings of this environment: its own `guardrails` over the project's. */
  guardrails?: GuardrailSettings;
}

const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const WORKSPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const DOMAIN =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::\d{1,5})?$/;
const ENTRY_KEYS = ['paths', 'var_files', 'domain', 'base_url', 'api', 'credentials', 'state', 'guardrails'];
const CREDENTIAL_KEYS: Record<string, keyof EnvironmentCredentials> = {
  token: 'token',
  client_id: 'clientId',
  client_secret: 'clientSecret',
};

function relativePath(node: Node | null, where: string, ctx: EntryContext): string | null {
  const value = stringValue(node);
  if (value === null) {
    ctx.at(node, `${where} must be a relative path`);
    return null;
  }
  if (value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value) || value.split(/[\\/]/).includes('..')) {
    ctx.at(node, `${where} entry "${value}" must be a path inside the project directory`);
    return null;
  }
  return join(ctx.dir, value);
}

function pathList(node: Node | null, where: string, ctx: EntryContext): string[] {
  if (!YAML.isSeq(node) || node.items.length === 0) {
    ctx.at(node, `${where} must be a non-empty list of relative paths`);
    return [];
  }
  return node.items.flatMap((item) => relativePath(item as Node, where, ctx) ?? []);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function checkBaseUrl(node: Node | null, where: string, ctx: EntryContext): string | undefined {
  const value = stringValue(node);
  let url: URL | null;
  try {
    url = value === null ? null : new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    ctx.at(node, `${where} must be an https:// URL such as https://tenant.example.com/api/v2`);
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    ctx.at(node, `${where} may use http:// only for a loopback host (127.0.0.1, localhost, [::1])`);
    return undefined;
  }
  return value!;
}

function checkCredentials(
  node: Node | null,
  where: string,
  ctx: EntryContext,
): EnvironmentCredentials | undefined {
  if (!YAML.isMap(node)) {
    ctx.at(
      node,
      `${where} must map token, or client_id and client_secret, to names of environment variables`,
    );
    return undefined;
  }
  const out: EnvironmentCredentials = {};
  for (const [key, keyNode, value] of entries(node)) {
    const field = CREDENTIAL_KEYS[key];
    if (!field) {
      ctx.at(keyNode, `${where} has unknown key "${key}" (allowed: token, client_id, client_secret)`);
      continue;
    }
    const name = stringValue(value);
    if (name === null || !VARIABLE.test(name)) {
      ctx.at(
        value ?? keyNode,
        `${where}.${key} must be the NAME of an environment variable (letters, digits and _), never the secret itself`,
      );
      continue;
    }
    out[field] = name;
  }
  const hasClient = out.clientId !== undefined || out.clientSecret !== undefined;
  if (out.token !== undefined && hasClient) {
    ctx.at(node, `${where}: give either token or client_id and client_secret, not both`);
  } else if (hasClient && (out.clientId === undefined || out.clientSecret === undefined)) {
    ctx.at(node, `${where}: client_id and client_secret go together`);
  }
  return out;
}

function checkState(node: Node | null, where: string, ctx: EntryContext): EnvironmentState | undefined {
  if (!YAML.isMap(node)) {
    ctx.at(node, `${where} must be {path: FILE} or {backend: pg, workspace: NAME}`);
    return undefined;
  }
  const seen = new Map(entries(node).map(([k, keyNode, v]) => [k, { keyNode, v }]));
  for (const [key, { keyNode }] of seen) {
    if (!['backend', 'path', 'workspace'].includes(key)) {
      ctx.at(keyNode, `${where} has unknown key "${key}" (allowed: backend, path, workspace)`);
    }
  }
  const backendNode = seen.get('backend')?.v ?? null;
  const backend = backendNode ? stringValue(backendNode) : 'file';
  if (backend !== 'file' && backend !== 'pg') {
    ctx.at(backendNode, `${where}.backend must be file or pg`);
    return undefined;
  }
  if (backend === 'file') {
    const ws = seen.get('workspace');
    if (ws) ctx.at(ws.keyNode, `${where}.workspace needs backend: pg`);
    const pathNode = seen.get('path');
    if (!pathNode) return { backend: 'file' };
    const path = relativePath(pathNode.v, `${where}.path`, ctx);
    return path === null ? undefined : { backend: 'file', path };
  }
  const pathNode = seen.get('path');
  if (pathNode) ctx.at(pathNode.keyNode, `${where}.path is for backend: file; pg uses workspace`);
  const wsNode = seen.get('workspace');
  const workspace = stringValue(wsNode?.v ?? null);
  if (workspace === null || !WORKSPACE.test(workspace)) {
    ctx.at(wsNode?.v ?? node, `${where}.workspace must be a workspace name (letters, digits, ., _ and -)`);
    return undefined;
  }
  return { backend: 'pg', workspace };
}

/** One environment from its key and value nodes; null (with issues) when its name or shape is wrong. */
export function checkEnvironment(keyNode: Node, value: Node | null, ctx: EntryContext): Environment | null {
  const name = YAML.isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
  const where = `environments.${name}`;
  if (!ENV_NAME.test(name)) {
    ctx.at(keyNode, `"${name}" is not a valid environment name (letters, digits, ., _ and -)`);
    return null;
  }
  if (!YAML.isMap(value)) {
    ctx.at(
      value ?? keyNode,
      `${where} must be a mapping with paths (and var_files, domain, credentials, state)`,
    );
    return null;
  }
  const env: Environment = { name, paths: [], varFiles: [] };
  const target: EnvironmentTarget = {};
  let sawPaths = false;
  for (const [key, k, v] of entries(value)) {
    if (key === 'paths') {
      sawPaths = true;
      env.paths = pathList(v, `${where}.paths`, ctx);
    } else if (key === 'var_files') env.varFiles = pathList(v, `${where}.var_files`, ctx);
    else if (key === 'domain') {
      const domain = stringValue(v);
      if (domain === null || !DOMAIN.test(domain)) {
        ctx.at(v ?? k, `${where}.domain must be a host name such as acme.eu.auth0.com (no scheme, no path)`);
      } else target.domain = domain;
    } else if (key === 'base_url') {
      const url = checkBaseUrl(v, `${where}.base_url`, ctx);
      if (url !== undefined) target.baseUrl = url;
    } else if (key === 'api') {
      const api = stringValue(v);
      if (api === null || !isApiProfile(api)) {
        ctx.at(
          v ?? k,
          `${where}.api must be spec (the spec's operations, the default) or full (also update and delete)`,
        );
      } else env.api = api;
    } else if (key === 'credentials') {
      const creds = checkCredentials(v, `${where}.credentials`, ctx);
      if (creds) env.credentials = creds;
    } else if (key === 'state') {
      const state = checkState(v, `${where}.state`, ctx);
      if (state) env.state = state;
    } else if (key === 'guardrails') {
      const guardrails = checkGuardrails(v, `${where}.guardrails`, ctx);
      if (guardrails) env.guardrails = guardrails;
    } else {
      ctx.at(k, `${where} has unknown key "${key}" (allowed: ${ENTRY_KEYS.join(', ')})`);
    }
  }
  if (!sawPaths) ctx.at(keyNode, `${where}.paths must be a non-empty list of relative paths`);
  if (target.domain !== undefined && target.baseUrl !== undefined) {
    ctx.at(keyNode, `${where}: give either domain or base_url, not both`);
  }
  if (target.domain !== undefined || target.baseUrl !== undefined) env.target = target;
  return env;
}

/**
 * Two environments must never share a state: their applies would take each
 * other's lock at best and overwrite each other's records at worst. Two
 * without a `state` entry whose last path is the same are refused too: their
 * default states differ (.tenantform/env-NAME/), but earlier versions kept
 * both in that path's .tenantform/state.json, which each would find.
 */
export function checkSharedState(environments: Environment[], envs: YAMLMap, ctx: EntryContext): void {
  const owner = new Map<string, string>();
  for (const env of environments) {
    const s = env.state;
    const key =
      s?.backend === 'pg'
        ? `pg:${s.workspace}`
        : `file:${s?.path ?? join(env.paths[env.paths.length - 1] ?? '', '.tenantform', 'state.json')}`;
    const first = owner.get(key);
    if (first === undefined) {
      owner.set(key, env.name);
      continue;
    }
    const pair = envs.items.find((p) => YAML.isScalar(p.key) && String(p.key.value) === env.name);
    const what = s?.backend === 'pg' ? `pg workspace "${s.workspace}"` : `state file ${key.slice(5)}`;
    ctx.at(
      (pair?.key as Node | undefined) ?? null,
      `environments.${env.name} uses the same ${what} as ${first}: give each environment its own state`,
    );
  }
}
