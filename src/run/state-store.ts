/**
 * The state store of a run: the state the request names, else the
 * environment's `state:` in tenantform.yaml, else the default place beside
 * the config for its environment and target (state-location.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { StateLocation, StateStore } from '../state/types.js';
import { RunError } from './errors.js';
import type { ConfigInput, RunIO, StateRequest, TargetRequest } from './requests.js';
import { locateDefaultState, NO_SCOPE, type StateScope } from './state-location.js';

/** `path` from the run's working directory. */
export function absolute(path: string, io: Pick<RunIO, 'cwd'>): string {
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/**
 * The state of one environment: its tenantform.yaml `state` entry unless the
 * request names a state itself (a file, a backend or a workspace), which wins.
 */
export function environmentState(state: StateRequest, input: ConfigInput): StateRequest {
  const s = input.environment?.state;
  if (!s || state.file !== undefined || state.backend !== undefined || state.workspace !== undefined) {
    return state;
  }
  return s.backend === 'pg'
    ? { ...state, backend: 'pg', workspace: s.workspace }
    : { ...state, backend: 'file', ...(s.path !== undefined ? { file: s.path } : {}) };
}

/** The target of one environment: the one the request names, else the environment's domain or base_url. */
export function environmentTarget(target: TargetRequest, input: ConfigInput): TargetRequest {
  const t = input.environment?.target;
  if (!t || target.domain !== undefined || target.baseUrl !== undefined) return target;
  return { domain: t.domain, baseUrl: t.baseUrl };
}

const TARGET_VARIABLES = ['TENANTFORM_BASE_URL', 'TENANTFORM_DOMAIN', 'AUTH0_DOMAIN'] as const;

/** True when the request or an environment variable names an API target (valid or not). */
export function targetGiven(target: TargetRequest, env: RunIO['env']): boolean {
  return [target.domain, target.baseUrl, ...TARGET_VARIABLES.map((name) => env[name])].some(
    (v) => v !== undefined && v.trim() !== '',
  );
}

/**
 * What the default state of an input depends on besides its paths (see
 * state-location.ts): its environment, and the target the request, its
 * environment or the process environment names (an invalid one counts as
 * none: it is reported where it is used).
 */
export async function stateScopeOf(
  input: ConfigInput,
  target: TargetRequest,
  io: RunIO,
): Promise<StateScope> {
  const t = environmentTarget({ domain: target.domain, baseUrl: target.baseUrl }, input);
  if (!targetGiven(t, io.env)) return { env: input.env, target: null };
  const { resolveTarget } = await import('../api/target.js');
  try {
    return { env: input.env, target: resolveTarget(t, io.env).baseUrl };
  } catch {
    return { env: input.env, target: null };
  }
}

/** The pg backend's settings of the request (connection string, schema, workspace). */
async function pgConfig(state: StateRequest, io: RunIO) {
  const pg = await import('../state/pg/index.js');
  return { pg, config: pg.resolvePgConfig(state.backendConfig ?? [], io.env, state.workspace) };
}

function refuseBackendSettings(state: StateRequest): void {
  if (state.backendConfig && state.backendConfig.length > 0) {
    throw new RunError({ code: 'STATE_SETTINGS_NEED_PG' }, 'backend settings apply to the pg backend only');
  }
}

/**
 * Where the state the request names lives (the file backend by default; its
 * default place per config path and `scope`): what a saved plan records and
 * apply compares. No I/O beyond locating a config path and its states; never
 * a credential.
 */
export async function resolveStateLocation(
  state: StateRequest,
  configPath: string,
  io: RunIO,
  scope: StateScope = NO_SCOPE,
): Promise<StateLocation> {
  if ((state.backend ?? 'file') === 'pg') {
    const { pg, config } = await pgConfig(state, io);
    return {
      backend: 'pg',
      server: pg.describeTarget(config.connectionString),
      schema: config.schema,
      workspace: config.workspace,
    };
  }
  refuseBackendSettings(state);
  const { realFilePath } = await import('../state/index.js');
  const path = state.file
    ? absolute(state.file, io)
    : locateDefaultState(absolute(configPath, io), scope).path;
  return { backend: 'file', path: realFilePath(path) };
}

/** Where an open store's state lives, as a saved plan records it: its real file, or the pg location of the request. */
export async function storeLocation(
  store: StateStore,
  state: StateRequest,
  configPath: string,
  io: RunIO,
): Promise<StateLocation> {
  return store.file !== undefined
    ? { backend: 'file', path: store.file }
    : resolveStateLocation(state, configPath, io);
}

/** The file the request names, else the default one of `configPath` for `scope` (noticed when it is an older place). */
function stateFile(state: StateRequest, configPath: string, io: RunIO, scope: StateScope): string {
  if (!state.file && !existsSync(absolute(configPath, io))) {
    throw new RunError(
      { code: 'STATE_CONFIG_MISSING', configPath },
      `${configPath} does not exist, so it cannot locate the state (in .tenantform/ beside the config); check the path, or name the state file`,
    );
  }
  if (state.file) return absolute(state.file, io);
  const located = locateDefaultState(absolute(configPath, io), scope);
  if (located.moveTo !== null) io.notice({ kind: 'older-state', path: located.path, moveTo: located.moveTo });
  return located.path;
}

/**
 * Opens the state store the request names (the file backend by default; its
 * default place per config path and `scope`, noticed when that is a place
 * older versions used).
 */
export async function openStore(
  state: StateRequest,
  configPath: string,
  io: RunIO,
  scope: StateScope = NO_SCOPE,
): Promise<StateStore> {
  if ((state.backend ?? 'file') === 'pg') {
    const { pg, config } = await pgConfig(state, io);
    const logger = state.debug ? (line: string) => io.notice({ kind: 'debug', line }) : undefined;
    return pg.createPgStateStore({ ...config, logger });
  }
  refuseBackendSettings(state);
  const path = stateFile(state, configPath, io, scope);
  if (existsSync(path) && statSync(path).isDirectory()) {
    const suggestion = join(state.file ?? path, 'state.json');
    throw new RunError(
      { code: 'STATE_IS_DIRECTORY', path, named: state.file ?? null },
      `the state path ${path} is a directory; the state is a file, e.g. ${suggestion}`,
    );
  }
  if (io.openFileStore) return io.openFileStore(path);
  const { createFileStateStore } = await import('../state/index.js');
  return createFileStateStore(path);
}

/**
 * The state store of one config input: the request's state, else its
 * environment's, else the default place for its last path, environment and
 * target.
 */
export async function openInputStore(
  state: StateRequest,
  target: TargetRequest,
  input: ConfigInput,
  io: RunIO,
): Promise<StateStore> {
  const scope = await stateScopeOf(input, target, io);
  return openStore(environmentState(state, input), input.paths[input.paths.length - 1]!, io, scope);
}
