/**
 * Settings of the PostgreSQL backend: where they come from (--backend-config,
 * --workspace, TENANTFORM_PG_URL), what is allowed, and how the target is
 * described without its password.
 */
import { plainText, setting, words, type Wording } from '../../resources/settings.js';

const CONFIG = setting('backendConfig');

/** Called with one line of debug output; lines never contain the password. */
export type PgLogger = (line: string) => void;

export interface PgStoreOptions {
  /** postgres://user:password@host:port/database?… (the password is never printed). */
  connectionString: string;
  /** One state per workspace (tenant/environment); default "default". */
  workspace?: string;
  /** How many previous documents to keep per workspace; default 20. */
  historyLimit?: number;
  /** Schema that holds tenantform's tables; default "tenantform". */
  schema?: string;
  logger?: PgLogger;
}

export interface ResolvedPgOptions {
  connectionString: string;
  workspace: string;
  historyLimit: number;
  schema: string;
}

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_HISTORY_LIMIT = 20;
export const DEFAULT_SCHEMA = 'tenantform';
export const PG_URL_ENV = 'TENANTFORM_PG_URL';
const MAX_HISTORY_LIMIT = 10_000;

/** A setting of the pg backend is missing or invalid. Never carries the connection string. */
export class PgConfigError extends Error {
  override readonly name = 'PgConfigError';
  readonly code = 'STATE_CONFIG';
  /** The message with the settings it names as data (src/cli words them with flags). */
  readonly wording?: Wording;
  constructor(message: string | Wording) {
    super(typeof message === 'string' ? message : plainText(message));
    if (typeof message !== 'string') this.wording = message;
  }
}

const WORKSPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkWorkspace(name: string): string {
  if (!WORKSPACE_PATTERN.test(name)) {
    throw new PgConfigError(
      `workspace "${name}" is not a valid name: use 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return name;
}

export function checkSchemaName(name: string): string {
  if (!SCHEMA_PATTERN.test(name)) {
    throw new PgConfigError(
      `schema "${name}" is not a valid name: use 1 to 63 lower-case letters, digits or "_", not starting with a digit`,
    );
  }
  return name;
}

function checkHistoryLimit(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_HISTORY_LIMIT) {
    throw new PgConfigError(
      `history must be a whole number from 0 to ${MAX_HISTORY_LIMIT} (got ${String(value)})`,
    );
  }
  return value;
}

function checkConnectionString(conn: string): string {
  let url: URL;
  try {
    url = new URL(conn);
  } catch {
    throw new PgConfigError(
      'the pg connection string is not a URL; use postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new PgConfigError(
      `the pg connection string must start with postgres:// or postgresql:// (got ${url.protocol}//…)`,
    );
  }
  return conn;
}

/** Fills defaults and checks every setting; throws PgConfigError naming the bad one. */
export function normalizePgOptions(options: PgStoreOptions): ResolvedPgOptions {
  return {
    connectionString: checkConnectionString(options.connectionString),
    workspace: checkWorkspace(options.workspace ?? DEFAULT_WORKSPACE),
    historyLimit: checkHistoryLimit(options.historyLimit ?? DEFAULT_HISTORY_LIMIT),
    schema: checkSchemaName(options.schema ?? DEFAULT_SCHEMA),
  };
}

const KNOWN_KEYS = ['conn', 'workspace', 'schema', 'history'] as const;

/**
 * Turns `--backend-config KEY=VALUE` items, the environment and `--workspace`
 * into store options. Keys: conn (else TENANTFORM_PG_URL), workspace, schema,
 * history (documents kept per workspace). A `--workspace` other than "default"
 * wins over `workspace=`; when both name different non-default workspaces the
 * call fails rather than guess.
 */
export function resolvePgConfig(
  backendConfig: readonly string[],
  env: Record<string, string | undefined>,
  workspaceFlag?: string,
): ResolvedPgOptions {
  const settings = new Map<string, string>();
  for (const item of backendConfig) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    if (eq < 0 || !(KNOWN_KEYS as readonly string[]).includes(key)) {
      // Never echo the item itself: it may be a connection string with its password.
      throw new PgConfigError(
        words`${CONFIG} takes KEY=VALUE with KEY one of ${KNOWN_KEYS.join(', ')} (got key "${eq < 0 ? '(none)' : key}")`,
      );
    }
    if (settings.has(key)) throw new PgConfigError(words`${CONFIG} ${key}= is given twice`);
    settings.set(key, item.slice(eq + 1));
  }
  const conn = settings.get('conn') || env[PG_URL_ENV];
  if (!conn) {
    throw new PgConfigError(
      words`${setting('backend')} pg needs a connection string: ${CONFIG} conn=postgres://USER:PASSWORD@HOST:PORT/DATABASE or ${PG_URL_ENV}`,
    );
  }
  const fromConfig = settings.get('workspace');
  const fromFlag = workspaceFlag === DEFAULT_WORKSPACE ? undefined : workspaceFlag;
  if (fromConfig !== undefined && fromFlag !== undefined && fromConfig !== fromFlag) {
    throw new PgConfigError(
      words`${setting('workspace')} ${fromFlag} and ${CONFIG} workspace=${fromConfig} disagree; give one`,
    );
  }
  const history = settings.get('history');
  if (history !== undefined && !/^\d+$/.test(history)) {
    throw new PgConfigError(words`${CONFIG} history= must be a whole number (got "${history}")`);
  }
  return normalizePgOptions({
    connectionString: conn,
    workspace: fromFlag ?? fromConfig ?? DEFAULT_WORKSPACE,
    schema: settings.get('schema'),
    historyLimit: history === undefined ? undefined : Number(history),
  });
}
