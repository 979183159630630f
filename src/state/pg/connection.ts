/**
 * The pool of connections one store uses for everything but the lock: lazy
 * connection, schema creation on first use, statements and transactions whose
 * failures come back as scrubbed StateErrors.
 */
import { Pool, type PoolClient } from 'pg';
import { StateError } from '../errors.js';
import type { PgLogger, ResolvedPgOptions } from './config.js';
import { describeTarget, pgError, scrub } from './redact.js';
import { ensureSchema } from './schema.js';

export const CONNECT_TIMEOUT_MS = 10_000;

export class PgConnection {
  readonly pool: Pool;
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly options: ResolvedPgOptions,
    /** The store's description, for messages. */
    readonly where: string,
    private readonly log: PgLogger,
  ) {
    this.pool = new Pool({
      connectionString: options.connectionString,
      application_name: `tenantform ${options.workspace}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      max: 4,
    });
    // Idle connections can fail (server restart, terminated backend): log it, never crash.
    this.pool.on('error', (err) =>
      this.log(scrub(`idle connection to ${where} failed: ${err.message}`, options.connectionString)),
    );
  }

  /** Wraps a driver failure into a scrubbed StateError (typed errors pass through). */
  fail(action: string, err: unknown): Error {
    return pgError(action, this.where, err, this.options.connectionString);
  }

  /** Connects and creates or checks the schema, once per store (again after a failure). */
  async prepare(): Promise<void> {
    if (this.closed) throw new StateError('STATE_IO', `state store ${this.where} was closed`);
    this.ready ??= this.connectAndCheck().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  async query<R extends object>(action: string, sql: string, params: unknown[]): Promise<R[]> {
    await this.prepare();
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw this.fail(action, err);
    }
  }

  /** Runs one statement; resolves to the number of rows it changed. */
  async execute(action: string, sql: string, params: unknown[]): Promise<number> {
    await this.prepare();
    try {
      return (await this.pool.query(sql, params)).rowCount ?? 0;
    } catch (err) {
      throw this.fail(action, err);
    }
  }

  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(action: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.prepare();
    const held = await this.checkout(action);
    try {
      await held.client.query('BEGIN');
      const result = await fn(held.client);
      await held.client.query('COMMIT');
      return result;
    } catch (err) {
      await held.client.query('ROLLBACK').catch(() => held.discard());
      throw this.fail(action, held.lost() ?? err);
    } finally {
      held.release();
    }
  }

  /**
   * A connection taken from the pool for several statements. While it is
   * out, the pool no longer listens for its errors: a connection lost between
   * two statements (the server stopped, the backend terminated) would be an
   * uncaught 'error' event and crash the process. The listener keeps that
   * error, so that the statement that fails next is reported with it, and the
   * connection is discarded, not reused.
   */
  private async checkout(action: string) {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.fail(action, err);
    }
    let lost: Error | null = null;
    let broken = false;
    const onError = (err: Error): void => {
      lost ??= err;
      broken = true;
    };
    client.on('error', onError);
    return {
      client,
      lost: () => lost,
      discard: () => (broken = true),
      release: () => {
        client.off('error', onError);
        client.release(broken);
      },
    };
  }

  /** Runs `fn` on one connection of the pool (prepared), wrapping driver failures. */
  async withClient<T>(action: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.prepare();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.fail(action, err);
    }
    try {
      return await fn(client);
    } catch (err) {
      throw this.fail(action, err);
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end().catch((err: unknown) => this.log(this.fail('close', err).message));
  }

  private async connectAndCheck(): Promise<void> {
    const held = await this.checkout('connect');
    try {
      const before = await ensureSchema(held.client, this.options.schema, this.where);
      if (before === 0) {
        this.log(`created schema ${this.options.schema} in ${describeTarget(this.options.connectionString)}`);
      }
    } catch (err) {
      throw this.fail('prepare the schema', held.lost() ?? err);
    } finally {
      held.release();
    }
  }
}
