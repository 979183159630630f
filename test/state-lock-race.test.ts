/**
 * Two OS processes racing for one state file's lock. Runs the built code
 * (dist/state/index.js): run `npm run build` first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type * as StateModule from '../src/state/index.js';

const built = resolve('dist/state/index.js');

/** A child that waits for "go", tries the lock, prints the outcome, and holds a won lock until "release". */
const RACER = `
import { createFileStateStore } from ${JSON.stringify(pathToFileURL(built).href)};
import { createInterface } from 'node:readline';
const [statePath, timeoutMs] = process.argv.slice(2);
const store = createFileStateStore(statePath);
const say = (msg) => process.stdout.write(JSON.stringify(msg) + '\\n');
const lines = createInterface({ input: process.stdin });
const next = () => new Promise((res) => lines.once('line', res));
say({ ready: true });
await next();
let slept = false;
const sleep = (ms) => { if (!slept) { slept = true; say({ waiting: true }); } return new Promise((r) => setTimeout(r, ms)); };
try {
  const lock = await store.lock({ pid: process.pid, host: 'racer-host', command: 'apply', since: new Date().toISOString() },
    { timeoutMs: Number(timeoutMs), sleep });
  say({ won: true, pid: process.pid });
  await next();
  await store.unlock(lock.id);
  await store.close();
  say({ released: true });
  process.exit(0);
} catch (err) {
  say({ won: false, pid: process.pid, code: err.code, holderPid: err.holder?.pid, message: err.message });
  process.exit(3);
}
`;

interface Racer {
  child: ChildProcessWithoutNullStreams;
  messages: Record<string, unknown>[];
  waitFor(key: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

let dir: string;
let script: string;
let children: ChildProcessWithoutNullStreams[] = [];

function startRacer(statePath: string, timeoutMs = 0): Racer {
  const child = spawn(process.execPath, [script, statePath, String(timeoutMs)], { stdio: 'pipe' });
  children.push(child);
  const messages: Record<string, unknown>[] = [];
  const waiters: { key: string; resolve: (m: Record<string, unknown>) => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
      buffer = buffer.slice(nl + 1);
      messages.push(message);
      for (const w of waiters.filter((w) => w.key in message)) w.resolve(message);
    }
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return {
    child,
    messages,
    exited,
    waitFor: (key) =>
      new Promise((res, rej) => {
        const found = messages.find((m) => key in m);
        if (found) return res(found);
        waiters.push({ key, resolve: res });
        void exited.then(() => setImmediate(() => rej(new Error(`racer exited before "${key}": ${stderr}`))));
      }),
  };
}

const outcome = (r: Racer) => r.messages.find((m) => 'won' in m)!;

beforeAll(() => {
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build before this test`);
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenantform-race-'));
  script = join(dir, 'racer.mjs');
  await writeFile(script, RACER);
});

afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  await rm(dir, { recursive: true, force: true });
});

describe('state lock across processes', () => {
  it('lets exactly one of two racing processes win; the other is told the winner’s pid', async () => {
    const statePath = join(dir, '.tenantform', 'state.json');
    const racers = [startRacer(statePath), startRacer(statePath)];
    await Promise.all(racers.map((r) => r.waitFor('ready')));
    for (const r of racers) r.child.stdin.write('go\n');
    await Promise.all(racers.map((r) => r.waitFor('won')));

    const winners = racers.filter((r) => outcome(r).won === true);
    const losers = racers.filter((r) => outcome(r).won === false);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const winnerPid = winners[0]!.child.pid;
    const lost = outcome(losers[0]!);
    expect(lost.code).toBe('STATE_LOCKED');
    expect(lost.holderPid).toBe(winnerPid);
    expect(lost.message).toContain(`locked by apply (pid ${winnerPid} on host racer-host)`);
    expect(await losers[0]!.exited).toBe(3);

    winners[0]!.child.stdin.write('release\n');
    expect(await winners[0]!.exited).toBe(0);
  });

  it('lets a waiting process take the lock once the holder releases it', async () => {
    const statePath = join(dir, 'state.json');
    const holder = startRacer(statePath);
    await holder.waitFor('ready');
    holder.child.stdin.write('go\n');
    expect((await holder.waitFor('won')).won).toBe(true);

    const waiter = startRacer(statePath, 60_000);
    await waiter.waitFor('ready');
    waiter.child.stdin.write('go\n');
    await waiter.waitFor('waiting');
    holder.child.stdin.write('release\n');
    expect((await waiter.waitFor('won')).won).toBe(true);
    waiter.child.stdin.write('release\n');
    expect(await waiter.exited).toBe(0);
  });

  it('keeps the lock of a killed process until force-unlock, which names it', async () => {
    const statePath = join(dir, 'state.json');
    const holder = startRacer(statePath);
    await holder.waitFor('ready');
    holder.child.stdin.write('go\n');
    await holder.waitFor('won');
    holder.child.kill('SIGKILL');
    await holder.exited;

    const { createFileStateStore } = (await import(pathToFileURL(built).href)) as typeof StateModule;
    const store = createFileStateStore(statePath);
    try {
      await expect(store.lock({ pid: 1, host: 'h', command: 'plan', since: 'now' })).rejects.toMatchObject({
        code: 'STATE_LOCKED',
        holder: { pid: holder.child.pid },
      });
      expect((await store.forceUnlock())?.pid).toBe(holder.child.pid);
      await store.lock({ pid: 1, host: 'h', command: 'plan', since: 'now' });
    } finally {
      await store.close();
    }
  });
});
