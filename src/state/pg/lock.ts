/**
 * The workspace lock: a session-level advisory lock held on a dedicated
 * connection for the lock's whole life, plus a row in the locks table naming
 * the holder. When the holder's process dies, its session ends and PostgreSQL
 * drops the advisory lock by itself; a row left behind is ignored, because a
 * row counts only while its backend still holds the advisory lock.
 */
import { randomUUID } from 'node:crypto';
import { Client, type ClientBase, type Pool } from 'pg';
import { LockError, StateError, unknownHolder } from '../errors.js';
import { toLockInfo } from '../lock-holder.js';
import { waitForLock } from '../lock-wait.js';
import type { LockInfo, LockOptions } from '../types.js';
import type { PgLogger } from './config.js';
import type { Tables } from './schema.js';

export interface LockContext {
  connectionString: string;
  workspace: string;
  tables: Tables;
  keys: [number, number];
  where: string;
  pool: Pool;
  log: PgLogger;
  /** Wraps a driver failure (see pgError). */
  fail: (action: string, err: unknown) => Error;
  connectTimeoutMs: number;
}

interface Held {
  info: LockInfo;
  client: Client;
  backendPid: number;
  lost: boolean;
}

const HOLDERS_SQL = `SELECT pid FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1 AND objid = $2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/** How long forceUnlock waits for a terminated backend to let go (bounded polls). */
const TERMINATE_POLLS = 100;
const TERMINATE_POLL_MS = 100;

/** How often, and how far apart, a lock taker looks again at a holder that has not written its row yet. */
const UNRECORDED_LOOKS = 20;
const UNRECORDED_PAUSE_MS = 25;

/** The id prefix `holder()` gives a holder it described from pg_stat_activity (no current row names it). */
const UNRECORDED_ID = 'backend-';

function isUnrecorded(holder: LockInfo): boolean {
  return holder.id.startsWith(UNRECORDED_ID);
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class PgLock {
  private held: Held | undefined;

  constructor(private readonly ctx: LockContext) {}

  /** Throws when this handle took the lock and has since lost it (force-unlocked or disconnected). */
  assertIntact(): void {
    if (this.held?.lost) throw this.lostError();
  }

  private lostError(): StateError {
    return new StateError(
      'STATE_CONFLICT',
      `the lock on ${this.ctx.where} was lost (force-unlocked, or its connection dropped); stopping so that two writers never mix`,
    );
  }

  /**
   * The condition a write must meet while this handle holds the lock: SQL
   * that is true only while the lock's backend still holds the advisory lock,
   * and its parameters (numbered from `first`). Null when no lock is held
   * (writes then need no guard). Checked inside the write statement itself, so
   * a write can never land after the lock was lost, even before the lock
   * connection's error event arrives (a server restarted in under a second).
   */
  guard(first: number): { sql: string; params: number[] } | null {
    const held = this.held;
    if (!held) return null;
    if (held.lost) throw this.lostError();
    const [a, b, c] = [first, first + 1, first + 2];
    return {
      sql: `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
              AND classid = $${a} AND objid = $${b} AND pid = $${c}
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
      params: [...this.ctx.keys, held.backendPid],
    };
  }

  /** Marks the lock lost after a guarded write found it gone; returns the error to throw. */
  noteLost(): StateError {
    if (this.held && !this.held.lost) {
      this.held.lost = true;
      this.ctx.log(`lock on ${this.ctx.where} lost: its backend no longer holds the advisory lock`);
    }
    return this.lostError();
  }

  async lock(info: Omit<LockInfo, 'id'>, options?: LockOptions): Promise<LockInfo> {
    if (this.held) {
      // Advisory locks are re-entrant within a session: a second take through this handle is refused,
      // unless the first was lost meanwhile (its session ended, e.g. force-unlocked elsewhere).
      const held = this.held;
      if (!held.lost && (await this.holderPids(this.ctx.pool)).includes(held.backendPid))
        throw new LockError(held.info, this.ctx.where);
      this.held = undefined;
      await held.client.end().catch(() => undefined);
    }
    const mine: LockInfo = { id: randomUUID(), ...info };
    const client = await this.connect();
    try {
      let vanished = 0;
      let unrecorded = 0;
      await waitForLock(
        async () => {
          for (;;) {
            const res = await client.query<{ ok: boolean }>(
              'SELECT pg_try_advisory_lock($1, $2) AS ok',
              this.ctx.keys,
            );
            if (res.rows[0]?.ok) return null;
            const holder = await this.holder(client);
            // A tenantform holder takes the advisory lock, then writes its row: a session seen
            // between the two looks unrecorded, so look again briefly before saying so.
            if (holder && (!isUnrecorded(holder) || ++unrecorded > UNRECORDED_LOOKS)) return holder;
            if (holder) {
              await new Promise((resolve) => setTimeout(resolve, UNRECORDED_PAUSE_MS));
              continue;
            }
            if (++vanished > 20) return unknownHolder();
          }
        },
        this.ctx.where,
        options,
      );
      // A row left behind names a holder whose session ended without unlocking (killed, crashed): say so.
      const res = await client.query<{ pid: number; previous: unknown }>(
        `WITH previous AS (SELECT holder FROM ${this.ctx.tables.locks} WHERE workspace = $1)
         INSERT INTO ${this.ctx.tables.locks} (workspace, holder, backend_pid, since)
         VALUES ($1, $2, pg_backend_pid(), now())
         ON CONFLICT (workspace) DO UPDATE SET holder = excluded.holder, backend_pid = excluded.backend_pid, since = excluded.since
         RETURNING backend_pid AS pid, (SELECT holder FROM previous) AS previous`,
        [this.ctx.workspace, JSON.stringify(mine)],
      );
      const previous = res.rows[0]?.previous;
      if (previous !== null && previous !== undefined)
        options?.onTakeover?.(toLockInfo(previous), 'session-ended');
      const held: Held = { info: mine, client, backendPid: res.rows[0]!.pid, lost: false };
      const onLost = () => {
        if (this.held === held) {
          held.lost = true;
          this.ctx.log(`lock on ${this.ctx.where} lost: its connection ended`);
        }
      };
      client.on('error', onLost);
      client.on('end', onLost);
      this.held = held;
      this.ctx.log(`locked ${this.ctx.where} for ${mine.command} (backend pid ${held.backendPid})`);
      return mine;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw this.ctx.fail('take the lock', err);
    }
  }

  async unlock(lockId: string): Promise<void> {
    const held = this.held;
    if (!held || held.info.id !== lockId) {
      // Not ours (or already gone): remove a record carrying this id, nothing else.
      await this.deleteRow(this.ctx.pool, lockId);
      return;
    }
    this.held = undefined;
    try {
      if (!held.lost) {
        await this.deleteRow(held.client, lockId);
        await held.client.query('SELECT pg_advisory_unlock($1, $2)', this.ctx.keys);
      } else {
        await this.deleteRow(this.ctx.pool, lockId);
      }
      this.ctx.log(`unlocked ${this.ctx.where}`);
    } finally {
      // Ending the session releases the advisory lock in any case.
      await held.client.end().catch(() => undefined);
    }
  }

  /**
   * Ends whichever session holds the advisory lock (pg_terminate_backend;
   * this handle's own session is simply closed), waits until the lock is
   * free, deletes the holder row and returns the holder that was removed.
   */
  async forceUnlock(): Promise<LockInfo | null> {
    const pool = this.ctx.pool;
    const holder = await this.holder(pool);
    const own = this.held;
    if (own && (await this.holderPids(pool)).includes(own.backendPid)) {
      this.held = undefined;
      await own.client.end().catch(() => undefined);
    }
    for (let i = 0; ; i++) {
      const pids = await this.holderPids(pool);
      if (pids.length === 0) break;
      if (i >= TERMINATE_POLLS) {
        throw new StateError(
          'STATE_IO',
          `the session holding ${this.ctx.where} (backend pid ${pids.join(', ')}) did not end`,
        );
      }
      if (i === 0) {
        for (const pid of pids) {
          this.ctx.log(`terminating backend pid ${pid}, which holds the lock on ${this.ctx.where}`);
          await pool.query('SELECT pg_terminate_backend($1)', [pid]);
        }
      }
      await pause(TERMINATE_POLL_MS);
    }
    await pool.query(`DELETE FROM ${this.ctx.tables.locks} WHERE workspace = $1`, [this.ctx.workspace]);
    return holder;
  }

  /** Ends the lock session, if any, and removes its record (best effort). */
  async close(): Promise<void> {
    const held = this.held;
    if (!held) return;
    await this.unlock(held.info.id).catch(() => undefined);
  }

  /**
   * Who holds the advisory lock now, or null when nobody does. A row whose
   * backend no longer holds the lock is stale and ignored; a lock without a
   * (current) row is described from pg_stat_activity.
   */
  async holder(client: ClientBase | Pool): Promise<LockInfo | null> {
    const pids = await this.holderPids(client);
    if (pids.length === 0) return null;
    const row = await client.query<{ holder: unknown; backend_pid: number }>(
      `SELECT holder, backend_pid FROM ${this.ctx.tables.locks} WHERE workspace = $1`,
      [this.ctx.workspace],
    );
    const current = row.rows[0];
    if (current && pids.includes(current.backend_pid)) return toLockInfo(current.holder);
    const pid = pids[0]!;
    const activity = await client.query<{ addr: string | null; app: string | null; started: Date | null }>(
      'SELECT client_addr::text AS addr, application_name AS app, backend_start AS started FROM pg_stat_activity WHERE pid = $1',
      [pid],
    );
    const a = activity.rows[0];
    return {
      id: `${UNRECORDED_ID}${pid}`,
      pid,
      host: a?.addr ?? 'unknown',
      command: `an unrecorded session "${a?.app || 'unknown'}" (PostgreSQL backend pid ${pid})`,
      since: a?.started ? a.started.toISOString() : 'unknown',
    };
  }

  private async holderPids(client: ClientBase | Pool): Promise<number[]> {
    const res = await client.query<{ pid: number }>(HOLDERS_SQL, this.ctx.keys);
    return res.rows.map((r) => r.pid);
  }

  private async deleteRow(client: ClientBase | Pool, lockId: string): Promise<void> {
    await client.query(`DELETE FROM ${this.ctx.tables.locks} WHERE workspace = $1 AND holder->>'id' = $2`, [
      this.ctx.workspace,
      lockId,
    ]);
  }

  private async connect(): Promise<Client> {
    const client = new Client({
      connectionString: this.ctx.connectionString,
      application_name: `tenantform lock ${this.ctx.workspace}`,
      connectionTimeoutMillis: this.ctx.connectTimeoutMs,
    });
    // An error on an idle connection must never crash the process; lock() installs the real handler.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => undefined);
      throw this.ctx.fail('connect for the lock', err);
    }
    return client;
  }
}
