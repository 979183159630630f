import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import { profile, putEntry, stateDoc } from './helpers/state-contract.js';
import type { StateError } from '../src/state/errors.js';
import { LockError } from '../src/state/errors.js';
import { openState } from '../src/state/session.js';
import { createPgStateStore, PG_SCHEMA_VERSION, type PgStateStore } from '../src/state/pg/index.js';
import { advisoryKeys } from '../src/state/pg/schema.js';
import { normalizePgOptions } from '../src/state/pg/config.js';
import { PgConnection } from '../src/state/pg/connection.js';
import { describePg, dropWorkspace, PG_URL, pgStore, sql } from './state-pg-support.js';

const holder = (command: string) => ({
  pid: 4242,
  host: 'runner-3',
  command,
  since: '2026-11-21T10:00:00.000Z',
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const opened: PgStateStore[] = [];
const schemas: string[] = [];
const clients: pg.Client[] = [];

/** A store tracked for cleanup; `workspace` shares a workspace with an earlier store. */
function track(store: PgStateStore): PgStateStore {
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const client of clients.splice(0)) await client.end().catch(() => undefined);
  for (const store of opened.splice(0)) {
    await store.close();
    await dropWorkspace(store.workspace);
  }
  for (const schema of schemas.splice(0)) await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

describePg('pg backend: writes and history', () => {
  it('lets exactly one of two concurrent compare-and-set writers win (STATE_CONFLICT for the other)', async () => {
    const a = track(pgStore());
    const b = track(createPgStateStore({ connectionString: PG_URL, workspace: a.workspace }));
    await a.write(stateDoc(1), null);
    const results = await Promise.allSettled([
      a.write(stateDoc(2, [profile(1)]), { lineage: stateDoc(1).lineage, serial: 1 }),
      b.write(stateDoc(2, [profile(2)]), { lineage: stateDoc(1).lineage, serial: 1 }),
    ]);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect(((failed[0] as PromiseRejectedResult).reason as StateError).code).toBe('STATE_CONFLICT');
    expect((await a.read())?.serial).toBe(2);
  });

  it('lets exactly one of two first writers (expected = null) win', async () => {
    const a = track(pgStore());
    const b = track(createPgStateStore({ connectionString: PG_URL, workspace: a.workspace }));
    const results = await Promise.allSettled([
      a.write(stateDoc(1, [profile(1)]), null),
      b.write(stateDoc(1, [profile(2)]), null),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((failed.reason as StateError).code).toBe('STATE_CONFLICT');
  });

  it('keeps the last N replaced documents, newest first', async () => {
    const store = track(pgStore({ historyLimit: 3 }));
    for (let serial = 1; serial <= 6; serial++) await store.write(stateDoc(serial, [profile(serial)]));
    expect((await store.history()).map((h) => h.serial)).toEqual([5, 4, 3]);
    expect(await store.historyDocument(5)).toEqual(stateDoc(5, [profile(5)]));
    expect(await store.historyDocument(1)).toBeNull();
  });

  it('keeps no history with historyLimit 0', async () => {
    const store = track(pgStore({ historyLimit: 0 }));
    await store.write(stateDoc(1));
    await store.write(stateDoc(2));
    expect(await store.history()).toEqual([]);
  });

  it.each([
    ['an unknown format_version', { ...stateDoc(3), format_version: 3 }, 'STATE_UNKNOWN_VERSION'],
    ['a document missing serial', { format_version: 1, lineage: 'x', resources: [] }, 'STATE_CORRUPT'],
  ])(
    'refuses a stored document with %s on read and write and leaves it untouched',
    async (_label, bad, code) => {
      const store = track(pgStore());
      await store.write(stateDoc(3));
      await sql(`UPDATE tenantform.states SET document = $2 WHERE workspace = $1`, [
        store.workspace,
        JSON.stringify(bad),
      ]);
      expect(((await rejection(store.read())) as StateError).code).toBe(code);
      expect(((await rejection(store.write(stateDoc(10)))) as StateError).code).toBe(code);
      const rows = await sql<{ document: unknown }>(
        'SELECT document FROM tenantform.states WHERE workspace = $1',
        [store.workspace],
      );
      expect(rows[0]?.document).toEqual(bad);
    },
  );

  it('refuses a journal row that is not a valid entry (STATE_CORRUPT naming its seq)', async () => {
    const store = track(pgStore());
    await store.appendJournal([putEntry(profile(1))]);
    await sql(`INSERT INTO tenantform.journal (workspace, entry) VALUES ($1, '{"v":1,"op":"explode"}')`, [
      store.workspace,
    ]);
    const err = (await rejection(store.readJournal())) as StateError;
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toMatch(/journal entry \d+ in pg workspace/);
  });

  it('appends a batch of entries in one statement, in order', async () => {
    const store = track(pgStore());
    const entries = Array.from({ length: 300 }, (_, i) => putEntry(profile(i)));
    await store.appendJournal(entries);
    expect(await store.readJournal()).toEqual(entries);
  });

  it('is unusable after close', async () => {
    const store = track(pgStore());
    await store.close();
    expect(((await rejection(store.read())) as StateError).code).toBe('STATE_IO');
  });
});

describePg('pg backend: schema', () => {
  const freshSchema = () => {
    const name = `t_schema_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    schemas.push(name);
    return name;
  };

  it('creates a missing schema on first use, once, even when several stores start together', async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 4 }, () => track(pgStore({ schema })));
    await Promise.all(stores.map((s) => s.read()));
    const rows = await sql<{ version: number }>(`SELECT version FROM "${schema}".schema_version`);
    expect(rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
  });

  it('refuses a schema newer than this build knows and changes nothing', async () => {
    const schema = freshSchema();
    await track(pgStore({ schema })).read();
    await sql(`UPDATE "${schema}".schema_version SET version = $1`, [PG_SCHEMA_VERSION + 1]);
    const err = (await rejection(track(pgStore({ schema })).read())) as StateError;
    expect(err.code).toBe('STATE_UNKNOWN_VERSION');
    expect(err.message).toContain(`layout version ${PG_SCHEMA_VERSION + 1}`);
    expect(await sql(`SELECT version FROM "${schema}".schema_version`)).toEqual([
      { version: PG_SCHEMA_VERSION + 1 },
    ]);
  });
});

describePg('pg backend: lock', () => {
  it('ignores a holder row left by a session that is gone', async () => {
    const store = track(pgStore());
    await store.read();
    const stale = { id: 'stale', ...holder('apply') };
    await sql('INSERT INTO tenantform.locks (workspace, holder, backend_pid) VALUES ($1, $2, 999999)', [
      store.workspace,
      JSON.stringify(stale),
    ]);
    const mine = await store.lock(holder('plan'));
    const rows = await sql<{ holder: unknown }>('SELECT holder FROM tenantform.locks WHERE workspace = $1', [
      store.workspace,
    ]);
    expect(rows[0]?.holder).toEqual(mine);
  });

  it('describes a session holding the lock without a holder row from pg_stat_activity', async () => {
    const store = track(pgStore());
    const client = new pg.Client({ connectionString: PG_URL, application_name: 'manual psql' });
    clients.push(client);
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1, $2)', advisoryKeys(`lock:tenantform:${store.workspace}`));
    const err = (await rejection(store.lock(holder('apply')))) as LockError;
    expect(err).toBeInstanceOf(LockError);
    expect(err.message).toContain('manual psql');
    expect(err.message).toMatch(/PostgreSQL backend pid \d+/);
  });

  it('force-unlock ends the holding session of another runner; that runner then refuses to write', async () => {
    const runner = track(pgStore());
    const admin = track(createPgStateStore({ connectionString: PG_URL, workspace: runner.workspace }));
    const session = await openState(runner, { command: 'apply', host: 'runner-3', pid: 4242 });
    expect(await admin.forceUnlock()).toEqual(session.lock);
    expect(await sql('SELECT 1 FROM tenantform.locks WHERE workspace = $1', [runner.workspace])).toEqual([]);
    await vi.waitFor(
      async () => {
        const err = (await rejection(session.record({ op: 'put', resource: profile(1) }))) as StateError;
        expect(err.message).toContain('lock on pg workspace');
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(await admin.readJournal()).toEqual([]);
    await session.release();
    const next = await admin.lock(holder('apply'));
    expect(next.command).toBe('apply');
  });
});

describePg('pg backend: secrets', () => {
  const badPassword = (conn: string, password: string) => {
    const url = new URL(conn);
    url.password = password;
    return url.toString();
  };

  it('keeps the password out of the description, errors and debug lines when the login fails', async () => {
    const secret = `wrong-${randomUUID()}`;
    const lines: string[] = [];
    const store = createPgStateStore({
      connectionString: badPassword(PG_URL, secret),
      workspace: 'secrets',
      logger: (l) => lines.push(l),
    });
    try {
      const err = await rejection(store.read());
      expect((err as StateError).code).toBe('STATE_IO');
      expect(err.message).toContain('check user and password');
      for (const text of [store.description, err.message, String(err.stack), ...lines])
        expect(text).not.toContain(secret);
      const lockErr = await rejection(store.lock(holder('apply')));
      expect(lockErr.message).not.toContain(secret);
    } finally {
      await store.close();
    }
  });

  it('keeps the password out of debug lines of a working store', async () => {
    const lines: string[] = [];
    const password = new URL(PG_URL).password;
    const store = track(pgStore({ logger: (l) => lines.push(l) }));
    const lock = await store.lock(holder('apply'));
    await store.write(stateDoc(1, [profile(1)]), null);
    await store.unlock(lock.id);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of [store.description, ...lines]) expect(line).not.toContain(password);
  });

  it('reports an unreachable server with the address, not the password', async () => {
    const url = new URL(PG_URL);
    url.port = '1';
    const store = createPgStateStore({ connectionString: url.toString() });
    try {
      const err = await rejection(store.read());
      expect(err.message).toContain('127.0.0.1:1/');
      expect(err.message).not.toContain(url.password);
    } finally {
      await store.close();
    }
  });
});

describePg('pg backend: a connection lost between two statements of a transaction', () => {
  it('is a clear error naming the server and what to do, never an uncaught error event', async () => {
    const conn = new PgConnection(
      normalizePgOptions({ connectionString: PG_URL, workspace: `lost-${randomUUID().slice(0, 8)}` }),
      'pg workspace "lost" on the test server',
      () => undefined,
    );
    const killer = new pg.Client({ connectionString: PG_URL });
    killer.on('error', () => undefined);
    clients.push(killer);
    await killer.connect();
    try {
      const err = await rejection(
        conn.transaction('write the state', async (client) => {
          const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          // The server ends this session while no statement of it runs (as when it stops during a commit).
          // (not events.once: it would listen for 'error' itself)
          const ended = new Promise((resolve) => client.once('end', resolve));
          await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          await ended;
          await client.query('SELECT 1');
        }),
      );
      expect(err.message).toMatch(/^pg workspace "lost" on the test server: could not write the state: /);
      expect(err.message).toContain('the connection to the server was lost');
      expect((err as StateError).code).toBe('STATE_IO');
    } finally {
      await conn.close();
    }
  });
});
