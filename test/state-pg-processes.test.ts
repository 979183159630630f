/**
 * Separate OS processes against one workspace: two racing for the lock, and
 * a writer killed mid-apply. The children import the built dist/ (run
 * `npm run build` first; `npm test` does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { openState } from '../src/state/session.js';
import type { PgStateStore } from '../src/state/pg/index.js';
import { describePg, dropWorkspace, freshWorkspace, PG_URL, pgStore } from './state-pg-support.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const url = (rel: string) => pathToFileURL(`${DIST}${rel}`).href;

/** The child: takes orders as lines on stdin, reports JSON lines on stdout. */
const CHILD = `
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
const { createPgStateStore } = await import(process.env.PG_MODULE);
const { openState } = await import(process.env.STATE_MODULE);
const { formatAddress } = await import(process.env.RESOURCES_MODULE);
const store = createPgStateStore({ connectionString: process.env.TENANTFORM_PG_URL, workspace: process.env.WS });
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const orders = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const info = { pid: process.pid, host: hostname(), command: 'apply ' + process.env.NAME, since: new Date().toISOString() };
const profile = (n) => {
  const type = 'urn:example:token:' + n;
  return { kind: 'token_exchange_profile', address: formatAddress('token_exchange_profile', [type]), identity: [type],
    attributes: { name: 'profile ' + n, subject_token_type: type, action_id: 'act_1', type: 'custom_authentication' }, id: 'tep_' + n };
};
await store.read();
say({ ready: true });
const order = (await orders.next()).value;
if (order === 'race') {
  try {
    const lock = await store.lock(info);
    say({ won: true, lock });
    await orders.next();
    await store.unlock(lock.id);
  } catch (err) {
    say({ won: false, code: err.code, message: err.message, holder: err.holder });
  }
  await store.close();
  process.exit(0);
}
if (order === 'apply') {
  const session = await openState(store, { command: 'apply ' + process.env.NAME, lineage: () => 'crash-lineage' });
  for (let n = 1; n <= 3; n++) await session.record({ op: 'put', resource: profile(n) });
  say({ journaled: 3, lock: session.lock });
  setInterval(() => {}, 60_000); // mid-apply until killed
}
`;

interface Child {
  proc: ChildProcess;
  next(): Promise<Record<string, unknown>>;
  send(line: string): void;
  exited: Promise<number | null>;
}

const children: Child[] = [];

function startChild(name: string, workspace: string): Child {
  const proc = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      TENANTFORM_PG_URL: PG_URL,
      WS: workspace,
      NAME: name,
      PG_MODULE: url('state/pg/index.js'),
      STATE_MODULE: url('state/index.js'),
      RESOURCES_MODULE: url('resources/index.js'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const child: Child = {
    proc,
    exited,
    async next() {
      const line = await lines.next();
      if (line.done) throw new Error(`child ${name} ended without reporting; stderr: ${stderr}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    },
    send: (line) => proc.stdin!.write(`${line}\n`),
  };
  children.push(child);
  return child;
}

const stores: PgStateStore[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await child.exited;
  }
  for (const store of stores.splice(0)) {
    await store.close();
    await dropWorkspace(store.workspace);
  }
});

describePg('pg backend: separate processes', () => {
  beforeAll(() => {
    if (!existsSync(`${DIST}state/pg/index.js`))
      throw new Error('dist/state/pg/index.js is missing: run `npm run build` first');
  });

  it('lets one of two racing processes take the lock; the other is told who holds it', async () => {
    const workspace = freshWorkspace('race');
    stores.push(pgStore({ workspace }));
    const racers = [startChild('A', workspace), startChild('B', workspace)];
    for (const r of racers) expect(await r.next()).toEqual({ ready: true });
    for (const r of racers) r.send('race');
    const reports = await Promise.all(racers.map((r) => r.next()));

    const winners = reports.filter((r) => r.won === true);
    expect(winners).toHaveLength(1);
    const winner = racers[reports.indexOf(winners[0]!)]!;
    const loser = reports.find((r) => r.won === false)!;
    const lock = winners[0]!.lock as { pid: number; command: string; host: string; since: string };
    expect(lock.pid).toBe(winner.proc.pid);
    expect(loser.code).toBe('STATE_LOCKED');
    expect(loser.holder).toEqual(lock);
    expect(loser.message).toContain(
      `locked by ${lock.command} (pid ${lock.pid} on host ${lock.host}) since ${lock.since}`,
    );

    winner.send('release');
    expect(await Promise.all(racers.map((r) => r.exited))).toEqual([0, 0]);
  });

  it('releases the lock of a writer killed mid-apply, keeps its journal, and the next run replays it', async () => {
    const workspace = freshWorkspace('crash');
    const store = pgStore({ workspace });
    stores.push(store);
    const writer = startChild('crashing', workspace);
    await writer.next();
    writer.send('apply');
    const report = await writer.next();
    expect(report.journaled).toBe(3);
    writer.proc.kill('SIGKILL');
    await writer.exited;

    expect(await store.readJournal()).toHaveLength(3);
    // The server drops the dead session's advisory lock once it notices; wait for that (bounded).
    const takeovers: [string, number][] = [];
    const session = await openState(store, {
      command: 'apply',
      lockTimeoutMs: 30_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 100))),
      onTakeover: (stale, replayed) => takeovers.push([`${stale.command} ${stale.pid}`, replayed]),
    });
    try {
      // The dead writer's holder row is replaced, and said so, with its journal replayed.
      expect(takeovers).toEqual([[`apply crashing ${writer.proc.pid}`, 3]]);
      expect(session.doc.lineage).toBe('crash-lineage');
      expect(session.doc.serial).toBe(1);
      expect(session.doc.resources.map((r) => r.id)).toEqual(['tep_1', 'tep_2', 'tep_3']);
    } finally {
      await session.release();
    }
    expect(await store.readJournal()).toEqual([]);
    expect((await store.read())?.resources).toHaveLength(3);
  });
});
