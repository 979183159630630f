/**
 * The PostgreSQL state backend (`--backend pg`): one database serves many
 * workspaces (one per tenant/environment). Owns its tables and their version,
 * the workspace lock (session advisory lock plus holder record), the
 * compare-and-set writes with history, the journal rows, the settings from
 * --backend-config / TENANTFORM_PG_URL, keeping the password out of every
 * message, and moving a state between stores. Does not own the StateStore
 * contract or the session flow (state/), nor flags and exit codes (cli/).
 */
export {
  DEFAULT_HISTORY_LIMIT,
  DEFAULT_SCHEMA,
  DEFAULT_WORKSPACE,
  PG_URL_ENV,
  PgConfigError,
  resolvePgConfig,
  type PgLogger,
  type PgStoreOptions,
  type ResolvedPgOptions,
} from './config.js';
export { describeTarget, redactConnectionString } from './redact.js';
export { PG_SCHEMA_VERSION } from './schema.js';
export { createPgStateStore, type PgHistoryItem, type PgStateStore } from './store.js';
export { migrateState, MigrateError, type MigrateOptions, type MigrateResult } from './migrate.js';
