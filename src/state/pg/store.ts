/**
 * The PostgreSQL StateStore: one row per workspace in `states`, its journal
 * in `journal`, replaced documents in `state_history` (the last N), and the
 * lock (see lock.ts). Every statement commits before its promise resolves.
 */
import type { ClientBase, PoolClient } from 'pg';
import { checkCompareAndSet } from '../document.js';
import { StateError } from '../errors.js';
import { checkDocumentToWrite, checkJournalEntry, checkStateDocument } from '../validate.js';
import type { JournalEntry, LockInfo, LockOptions, StateDocument, StateStore } from '../types.js';
import {
  DEFAULT_SCHEMA,
  normalizePgOptions,
  type PgLogger,
  type PgStoreOptions,
  type ResolvedPgOptions,
} from './config.js';
import { CONNECT_TIMEOUT_MS, PgConnection } from './connection.js';
import { PgLock } from './lock.js';
import { describeTarget, scrub } from './redact.js';
import {
  advisoryKeys,
  ensureNamesTable,
  ensureRateLimitsTable,
  ensurePlanKeysTable,
  isMissingTable,
  tablesOf,
  type Tables,
} from './schema.js';
import { randomBytes } from '../random.js';
import { knownNamesDocument, parseKnownNames, type KnownNames } from '../../resources/index.js';

/** One replaced document kept for audit. */
export interface PgHistoryItem {
  serial: number;
  lineage: string;
  replacedAt: string;
}

/** The pg store: a StateStore plus what only this backend offers. */
export interface PgStateStore extends StateStore {
  readonly workspace: string;
  /** Replaced documents kept for this workspace, newest first (at most historyLimit). */
  history(): Promise<PgHistoryItem[]>;
  /** A replaced document by serial (the newest with that serial), or null. */
  historyDocument(serial: number): Promise<StateDocument | null>;
}

type Expected = { lineage: string; serial: number } | null | undefined;

class PgStore implements PgStateStore {
  readonly description: string;
  readonly workspace: string;
  private readonly db: PgConnection;
  private readonly tables: Tables;
  private readonly locker: PgLock;

  constructor(
    private readonly options: ResolvedPgOptions,
    private readonly log: PgLogger,
  ) {
    const schemaNote = options.schema === DEFAULT_SCHEMA ? '' : ` (schema ${options.schema})`;
    this.workspace = options.workspace;
    this.description = `pg workspace "${options.workspace}" on ${describeTarget(options.connectionString)}${schemaNote}`;
    this.tables = tablesOf(options.schema);
    this.db = new PgConnection(options, this.description, log);
    this.locker = new PgLock({
      connectionString: options.connectionString,
      workspace: options.workspace,
      tables: this.tables,
      keys: advisoryKeys(`lock:${options.schema}:${options.workspace}`),
      where: this.description,
      pool: this.db.pool,
      log,
      fail: (action, err) => this.db.fail(action, err),
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  }

  failure(): Error | null {
    try {
      this.locker.assertIntact();
      return null;
    } catch (err) {
      return err as Error;
    }
  }

  async read(): Promise<StateDocument | null> {
    const rows = await this.db.query<{ document: unknown }>(
      'read the state',
      `SELECT document FROM ${this.tables.states} WHERE workspace = $1`,
      [this.workspace],
    );
    const row = rows[0];
    return row ? checkStateDocument(row.document, `state in ${this.description}`) : null;
  }

  async write(doc: StateDocument, expected?: Expected): Promise<void> {
    const next = checkDocumentToWrite(doc, this.description);
    this.locker.assertIntact();
    const t = this.tables;
    await this.db.transaction('write the state', async (client) => {
      const guard = this.locker.guard(1);
      if (guard) {
        const ok = await client.query<{ ok: boolean }>(`SELECT ${guard.sql} AS ok`, guard.params);
        if (!ok.rows[0]?.ok) throw this.locker.noteLost();
      }
      const res = await client.query<{ document: unknown }>(
        `SELECT document FROM ${t.states} WHERE workspace = $1 FOR UPDATE`,
        [this.workspace],
      );
      const stored = res.rows[0] ? this.storedDocument(res.rows[0].document) : null;
      checkCompareAndSet(stored, expected, next, this.description);
      const values = [this.workspace, next.lineage, next.serial, JSON.stringify(next)];
      if (stored) {
        await this.keepHistory(client);
        await client.query(
          `UPDATE ${t.states} SET lineage = $2, serial = $3, document = $4, updated_at = now() WHERE workspace = $1`,
          values,
        );
        return;
      }
      // Nobody had a row to lock: a rival may insert first. ON CONFLICT waits for it, then tells.
      const inserted = await client.query(
        `INSERT INTO ${t.states} (workspace, lineage, serial, document) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace) DO NOTHING`,
        values,
      );
      if (inserted.rowCount === 0) {
        throw new StateError(
          'STATE_CONFLICT',
          `state ${this.description} changed since it was read: expected no state, found one written by ` +
            'another process; nothing was written. Run the command again.',
        );
      }
    });
    this.log(`wrote serial ${next.serial} (${next.resources.length} resources) to ${this.description}`);
  }

  async appendJournal(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement, so all entries commit together and keep their order; while a lock is
    // held, only if its backend still holds it (checked by the statement itself).
    const guard = this.locker.guard(3);
    const inserted = await this.db.execute(
      'append to the journal',
      `INSERT INTO ${this.tables.journal} (workspace, entry)
       SELECT $1, e.value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(value, n)
       ${guard ? `WHERE ${guard.sql}` : ''} ORDER BY e.n`,
      [this.workspace, JSON.stringify(entries), ...(guard?.params ?? [])],
    );
    if (inserted !== entries.length) throw this.locker.noteLost();
  }

  async readJournal(): Promise<JournalEntry[]> {
    const rows = await this.db.query<{ seq: string; entry: unknown }>(
      'read the journal',
      `SELECT seq, entry FROM ${this.tables.journal} WHERE workspace = $1 ORDER BY seq`,
      [this.workspace],
    );
    return rows.map((row) => checkJournalEntry(row.entry, `journal entry ${row.seq} in ${this.description}`));
  }

  async clearJournal(): Promise<void> {
    // Never clear a journal that another holder may be appending to.
    const guard = this.locker.guard(2);
    if (!guard) {
      await this.db.query('clear the journal', `DELETE FROM ${this.tables.journal} WHERE workspace = $1`, [
        this.workspace,
      ]);
      return;
    }
    const rows = await this.db.query<{ ok: boolean }>(
      'clear the journal',
      `WITH lock_held AS (SELECT ${guard.sql} AS ok),
            gone AS (DELETE FROM ${this.tables.journal} WHERE workspace = $1 AND (SELECT ok FROM lock_held))
       SELECT ok FROM lock_held`,
      [this.workspace, ...guard.params],
    );
    if (!rows[0]?.ok) throw this.locker.noteLost();
  }

  get planKeyWhere(): string {
    return `table ${this.tables.planKeys}, workspace "${this.workspace}", of ${describeTarget(this.options.connectionString)}`;
  }

  async planKey({ create }: { create: boolean }): Promise<Buffer | null> {
    return this.db.withClient(create ? 'make the plan key' : 'read the plan key', async (client) => {
      const read = async (): Promise<Buffer | null> => {
        try {
          const res = await client.query<{ key: Buffer }>(
            `SELECT key FROM ${this.tables.planKeys} WHERE workspace = $1`,
            [this.workspace],
          );
          return res.rows[0]?.key ?? null;
        } catch (err) {
          if (isMissingTable(err)) return null;
          throw err;
        }
      };
      const found = await read();
      if (found || !create) return found;
      await ensurePlanKeysTable(client, this.options.schema);
      // Two first users at once: the first insert wins, and both read it.
      await client.query(
        `INSERT INTO ${this.tables.planKeys} (workspace, key) VALUES ($1, $2) ON CONFLICT (workspace) DO NOTHING`,
        [this.workspace, randomBytes(32)],
      );
      return read();
    });
  }

  /** The names kept from the last reads of the tenant: the workspace's row of the names table (none before it exists). */
  async readNames(): Promise<KnownNames | null> {
    const names = await this.readSideRow<unknown>('read the names', this.tables.names, 'names');
    return names === null ? null : parseKnownNames(names);
  }

  /** Replaces the workspace's names (no lock: the last read's names win; the state document is untouched). */
  async writeNames(known: KnownNames): Promise<void> {
    const text = JSON.stringify(knownNamesDocument(known));
    await this.writeSideRow('keep the names', ensureNamesTable, this.tables.names, 'names', text);
  }

  /** The rate-limit facts kept from the last run: the workspace's row of rate_limits (none before it exists). */
  async readRateLimits(): Promise<string | null> {
    return this.readSideRow<string>('read the rate-limit facts', this.tables.rateLimits, 'facts');
  }

  /** Replaces the workspace's rate-limit facts (no lock: the last run's win; the state document is untouched). */
  async writeRateLimits(text: string): Promise<void> {
    await this.writeSideRow(
      'keep the rate-limit facts',
      ensureRateLimitsTable,
      this.tables.rateLimits,
      'facts',
      text,
    );
  }

  /**
   * The workspace's value in a table kept beside the document (names,
   * rate_limits: one row per workspace, read without the lock), or null
   * before the table or the row exists.
   */
  private async readSideRow<T>(what: string, table: string, column: string): Promise<T | null> {
    return this.db.withClient(what, async (client) => {
      try {
        const res = await client.query<Record<string, T>>(
          `SELECT ${column} FROM ${table} WHERE workspace = $1`,
          [this.workspace],
        );
        return res.rows[0]?.[column] ?? null;
      } catch (err) {
        if (isMissingTable(err)) return null;
        throw err;
      }
    });
  }

  /** Replaces the workspace's value in a table kept beside the document, making the table on first need. */
  private async writeSideRow(
    what: string,
    ensure: (client: ClientBase, schema: string) => Promise<void>,
    table: string,
    column: string,
    value: string,
  ): Promise<void> {
    await this.db.withClient(what, async (client) => {
      await ensure(client, this.options.schema);
      await client.query(
        `INSERT INTO ${table} (workspace, ${column}) VALUES ($1, $2)
         ON CONFLICT (workspace) DO UPDATE SET ${column} = EXCLUDED.${column}, updated_at = now()`,
        [this.workspace, value],
      );
    });
  }

  lock(info: Omit<LockInfo, 'id'>, options?: LockOptions): Promise<LockInfo> {
    return this.locked('take the lock', () => this.locker.lock(info, options));
  }

  unlock(lockId: string): Promise<void> {
    return this.locked('release the lock', () => this.locker.unlock(lockId));
  }

  forceUnlock(): Promise<LockInfo | null> {
    return this.locked('force-unlock', () => this.locker.forceUnlock());
  }

  /** The holder of the advisory lock (a row counts only while its session holds the lock), or null. */
  lockHolder(): Promise<LockInfo | null> {
    return this.locked('read the lock holder', () => this.locker.holder(this.db.pool));
  }

  async history(): Promise<PgHistoryItem[]> {
    const rows = await this.db.query<{ serial: string; lineage: string; replaced_at: Date }>(
      'read the history',
      `SELECT serial, lineage, replaced_at FROM ${this.tables.history} WHERE workspace = $1 ORDER BY id DESC`,
      [this.workspace],
    );
    return rows.map((r) => ({
      serial: Number(r.serial),
      lineage: r.lineage,
      replacedAt: r.replaced_at.toISOString(),
    }));
  }

  async historyDocument(serial: number): Promise<StateDocument | null> {
    const rows = await this.db.query<{ document: unknown }>(
      'read the history',
      `SELECT document FROM ${this.tables.history} WHERE workspace = $1 AND serial = $2 ORDER BY id DESC LIMIT 1`,
      [this.workspace, serial],
    );
    const row = rows[0];
    return row ? checkStateDocument(row.document, `history serial ${serial} in ${this.description}`) : null;
  }

  async close(): Promise<void> {
    await this.locker.close();
    await this.db.close();
  }

  /** Runs a lock operation once the schema is ready, wrapping driver failures. */
  private async locked<T>(action: string, fn: () => Promise<T>): Promise<T> {
    await this.db.prepare();
    try {
      return await fn();
    } catch (err) {
      throw this.db.fail(action, err);
    }
  }

  /** Copies the current document into the history, then trims it to the last N. */
  private async keepHistory(client: PoolClient): Promise<void> {
    const t = this.tables;
    if (this.options.historyLimit === 0) return;
    await client.query(
      `INSERT INTO ${t.history} (workspace, serial, lineage, document)
       SELECT workspace, serial, lineage, document FROM ${t.states} WHERE workspace = $1`,
      [this.workspace],
    );
    await client.query(
      `DELETE FROM ${t.history} WHERE workspace = $1 AND id NOT IN
         (SELECT id FROM ${t.history} WHERE workspace = $1 ORDER BY id DESC LIMIT $2)`,
      [this.workspace, this.options.historyLimit],
    );
  }

  /** The document about to be replaced; one this build cannot read is never overwritten. */
  private storedDocument(value: unknown): StateDocument {
    try {
      return checkStateDocument(value, `state in ${this.description}`);
    } catch (err) {
      if (err instanceof StateError) {
        throw new StateError(err.code, `refusing to write the state: ${err.message}`);
      }
      throw err;
    }
  }
}

/**
 * A StateStore in PostgreSQL. Connects lazily: creating the store does no I/O;
 * the first call creates the schema when missing. Throws PgConfigError at once
 * for a bad setting.
 */
export function createPgStateStore(options: PgStoreOptions): PgStateStore {
  const resolved = normalizePgOptions(options);
  const logger = options.logger;
  const log: PgLogger = logger
    ? (line) => logger(`pg: ${scrub(line, resolved.connectionString)}`)
    : () => undefined;
  return new PgStore(resolved, log);
}
