/**
 * The database schema of the pg backend: its tables, its version, and its
 * creation on first use. Creation runs in one transaction under an advisory
 * transaction lock, so two first users never race; a schema newer than this
 * build knows is refused untouched.
 */
import { createHash } from 'node:crypto';
import type { ClientBase } from 'pg';
import { StateError } from '../errors.js';

/** Version of the table layout below; bump it and append a step to MIGRATIONS. */
export const PG_SCHEMA_VERSION = 1;

export interface Tables {
  schema: string;
  version: string;
  states: string;
  journal: string;
  history: string;
  locks: string;
  planKeys: string;
  names: string;
  rateLimits: string;
}

/** Qualified, quoted table names. `schema` must already be checked (see checkSchemaName). */
export function tablesOf(schema: string): Tables {
  const s = `"${schema}"`;
  return {
    schema: s,
    version: `${s}.schema_version`,
    states: `${s}.states`,
    journal: `${s}.journal`,
    history: `${s}.state_history`,
    locks: `${s}.locks`,
    planKeys: `${s}.plan_keys`,
    names: `${s}.names`,
    rateLimits: `${s}.rate_limits`,
  };
}

/**
 * Two non-negative 31-bit keys derived from a label, for the two-int form of
 * the advisory lock functions (shown in pg_locks as classid/objid, objsubid 2).
 */
export function advisoryKeys(label: string): [number, number] {
  const digest = createHash('sha256').update(`tenantform:${label}`).digest();
  return [digest.readUInt32BE(0) & 0x7fffffff, digest.readUInt32BE(4) & 0x7fffffff];
}

/** MIGRATIONS[n] turns version n into version n + 1. */
const MIGRATIONS: ((t: Tables) => string[])[] = [
  (t) => [
    `CREATE TABLE ${t.states} (
       workspace text PRIMARY KEY,
       lineage text NOT NULL,
       serial bigint NOT NULL,
       document jsonb NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE ${t.journal} (
       workspace text NOT NULL,
       seq bigserial,
       entry jsonb NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (workspace, seq))`,
    `CREATE TABLE ${t.history} (
       id bigserial PRIMARY KEY,
       workspace text NOT NULL,
       serial bigint NOT NULL,
       lineage text NOT NULL,
       document jsonb NOT NULL,
       replaced_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE INDEX state_history_by_workspace ON ${t.history} (workspace, id)`,
    `CREATE TABLE ${t.locks} (
       workspace text PRIMARY KEY,
       holder jsonb NOT NULL,
       backend_pid int NOT NULL,
       since timestamptz NOT NULL DEFAULT now())`,
  ],
];

function tooNew(version: number, where: string, schema: string): StateError {
  return new StateError(
    'STATE_UNKNOWN_VERSION',
    `schema ${schema} in ${where} has layout version ${version}, but this tenantform knows version ${PG_SCHEMA_VERSION} at most; ` +
      'nothing was changed. Use the tenantform release that upgraded it.',
  );
}

const MISSING = new Set(['42P01', '3F000']); // undefined_table, invalid_schema_name

async function currentVersion(client: ClientBase, t: Tables): Promise<number | null> {
  try {
    const res = await client.query<{ version: number }>(`SELECT version FROM ${t.version} WHERE id = 1`);
    return res.rows[0]?.version ?? null;
  } catch (err) {
    if (MISSING.has(String((err as { code?: unknown }).code))) return null;
    throw err;
  }
}

/**
 * Makes sure the schema exists at PG_SCHEMA_VERSION. Cheap when it does (one
 * query, no privilege beyond SELECT needed); otherwise creates or upgrades it
 * in a transaction holding an advisory transaction lock. Returns the version
 * found before any change (0 when the schema was created).
 */
export async function ensureSchema(client: ClientBase, schema: string, where: string): Promise<number> {
  const t = tablesOf(schema);
  const found = await currentVersion(client, t);
  if (found === PG_SCHEMA_VERSION) return found;
  if (found !== null && found > PG_SCHEMA_VERSION) throw tooNew(found, where, t.schema);

  const [k1, k2] = advisoryKeys(`schema:${schema}`);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [k1, k2]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.version} (
         id int PRIMARY KEY CHECK (id = 1),
         version int NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now())`,
    );
    const res = await client.query<{ version: number }>(
      `SELECT version FROM ${t.version} WHERE id = 1 FOR UPDATE`,
    );
    const before = res.rows[0]?.version ?? 0;
    if (before > PG_SCHEMA_VERSION) throw tooNew(before, where, t.schema);
    for (let v = before; v < PG_SCHEMA_VERSION; v++) {
      for (const statement of MIGRATIONS[v]!(t)) await client.query(statement);
    }
    await client.query(
      `INSERT INTO ${t.version} (id, version) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = now()`,
      [PG_SCHEMA_VERSION],
    );
    await client.query('COMMIT');
    return before;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Runs `create` (a CREATE TABLE IF NOT EXISTS) in one transaction under the schema's advisory transaction lock. */
async function ensureTable(client: ClientBase, schema: string, create: string): Promise<void> {
  const [k1, k2] = advisoryKeys(`schema:${schema}`);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [k1, k2]);
    await client.query(create);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Creates the plan_keys table (one plan key per workspace, see
 * src/state/plan-key.ts for the file backend's) when missing, under the
 * schema's advisory transaction lock. An addition to layout version 1 that
 * older tenantform builds never touch, so it needs no version of its own:
 * they keep working on a database where it exists. Made by the first
 * `plan --out`, which then needs the privilege to create a table.
 */
export async function ensurePlanKeysTable(client: ClientBase, schema: string): Promise<void> {
  await ensureTable(
    client,
    schema,
    `CREATE TABLE IF NOT EXISTS ${tablesOf(schema).planKeys} (
       workspace text PRIMARY KEY,
       key bytea NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now())`,
  );
}

/**
 * Creates the names table (the names kept from the last reads of the tenant,
 * one row per workspace: src/resources/known-names.ts) when missing. Like
 * plan_keys, an addition to layout version 1 that older builds never touch;
 * made by the first read of the tenant that finds names.
 */
export async function ensureNamesTable(client: ClientBase, schema: string): Promise<void> {
  await ensureTable(
    client,
    schema,
    `CREATE TABLE IF NOT EXISTS ${tablesOf(schema).names} (
       workspace text PRIMARY KEY,
       names jsonb NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now())`,
  );
}

/**
 * Creates the rate_limits table (the tenant's rate-limit facts from the last
 * run, one row per workspace, as the text src/run/rate-memory.ts writes) when
 * missing: like names, an addition to layout version 1, made by the first
 * run that got answers.
 */
export async function ensureRateLimitsTable(client: ClientBase, schema: string): Promise<void> {
  await ensureTable(
    client,
    schema,
    `CREATE TABLE IF NOT EXISTS ${tablesOf(schema).rateLimits} (
       workspace text PRIMARY KEY,
       facts text NOT NULL,
       updated_at timestamptz NOT NULL DEFAULT now())`,
  );
}

/** True for the error of a statement on a table that does not exist (yet). */
export function isMissingTable(err: unknown): boolean {
  return MISSING.has(String((err as { code?: unknown } | null)?.code));
}
