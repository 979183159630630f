/**
 * Shared by the test/state-pg-*.test.ts files: finding the PostgreSQL server
 * (TENANTFORM_PG_URL, started by scripts/ci-postgres.sh), skipping when there
 * is none outside CI, fresh workspaces and cleanup.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import {
  createPgStateStore,
  redactConnectionString,
  type PgStateStore,
  type PgStoreOptions,
} from '../src/state/pg/index.js';

export const PG_URL = process.env.TENANTFORM_PG_URL ?? '';
const IN_CI = Boolean(process.env.CI);

/** Null when the server answers; otherwise why not (without the password). */
async function probe(): Promise<string | null> {
  if (!PG_URL) return 'TENANTFORM_PG_URL is not set';
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return `${redactConnectionString(PG_URL)} is not reachable: ${message.split(PG_URL).join('…')}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await probe();
export const pgAvailable = unreachable === null;

/**
 * describe() for tests that need the server. Without one they are skipped with
 * a message, except in CI (CI set), where a missing server fails the run.
 */
export function describePg(name: string, body: () => void): void {
  if (pgAvailable) {
    describe(name, body);
    return;
  }
  if (IN_CI) {
    describe(name, () => {
      it('needs a PostgreSQL server (CI is set, so these tests must run)', () => {
        throw new Error(`${unreachable}. Start one with: eval "$(scripts/ci-postgres.sh | tail -1)"`);
      });
    });
    return;
  }
  console.warn(
    `skipping "${name}": ${unreachable}. Start a server with: eval "$(scripts/ci-postgres.sh | tail -1)"`,
  );
  describe.skip(name, body);
}

/** A workspace name no other test uses. */
export function freshWorkspace(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 12)}`;
}

/** A store on a fresh (or given) workspace of the test server. */
export function pgStore(options: Partial<PgStoreOptions> = {}): PgStateStore {
  return createPgStateStore({ connectionString: PG_URL, workspace: freshWorkspace(), ...options });
}

/** Runs SQL on the test server, bypassing the store. */
export async function sql<R extends object = Record<string, unknown>>(
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Deletes every row of a workspace (tables of the default schema). */
export async function dropWorkspace(workspace: string, schema = 'tenantform'): Promise<void> {
  for (const table of ['states', 'journal', 'state_history', 'locks', 'plan_keys']) {
    await sql(`DELETE FROM "${schema}".${table} WHERE workspace = $1`, [workspace]).catch(() => undefined);
  }
}
