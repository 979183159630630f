/**
 * An apply acknowledges an operation (a `done` event, a line of the result)
 * only once its record is durable: the journal's fsync that carries it has
 * returned. The file store's fsync is injected and held, so that answers
 * pile up while one fsync is in flight (issue 39: the executor sends on while
 * records are made durable); those answers then share the next fsync, which
 * waits for the journal's commit interval (its clock injected too) unless a
 * worker has nothing left to send.
 */
import { readFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../src/apply/index.js';
import type { ExecutorClient } from '../src/apply/types.js';
import { PLAN_FORMAT_VERSION, type Change, type Plan } from '../src/plan/types.js';
import { formatAddress } from '../src/resources/index.js';
import { createFileStateStore, openState, type SyncTarget } from '../src/state/index.js';
import { tempDir } from './helpers/cli.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function creates(n: number): Change[] {
  return Array.from({ length: n }, (_, i) => {
    const identity = [
      'oauth_authentication_api',
      'client',
      `client_id:durable-${String(i).padStart(3, '0')}`,
    ];
    return {
      address: formatAddress('rate_limit_policy', identity),
      kind: 'rate_limit_policy',
      identity,
      action: 'create' as const,
      before: null,
      after: {
        resource: identity[0],
        consumer: identity[1],
        consumer_selector: identity[2],
        configuration: { action: 'log', limit: 10 },
      },
      id: null,
      adopted: false,
      reason: { code: 'create' },
      source: null,
    };
  });
}

const planOf = (changes: Change[]): Plan => ({
  format_version: PLAN_FORMAT_VERSION,
  api: 'spec',
  state: { lineage: null, serial: 0 },
  changes,
  summary: { create: changes.length, update: 0, replace: 0, delete: 0, forget: 0, blocked: 0, no_op: 0 },
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The journal's fsync, counted and held when told; `durable` is the journal's bytes as of the last one that returned. */
function heldSync(journal: string) {
  const state = { durable: '', fsyncs: 0, holding: true, held: [] as (() => void)[] };
  const sync = async (handle: FileHandle, target: SyncTarget): Promise<void> => {
    if (target !== 'journal') return handle.sync();
    state.fsyncs++;
    const bytes = readFileSync(journal, 'utf8'); // what this fsync makes durable
    if (state.holding) await new Promise<void>((resolve) => state.held.push(resolve));
    await handle.sync();
    state.durable = bytes;
  };
  return { state, sync };
}

/** Waits (real I/O: no time limit of its own) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 1));
}

describe('apply acknowledges an operation only after its record is fsynced', () => {
  it('reports no operation done before the fsync carrying its record returned, and answers that arrive during one fsync share the next', async () => {
    const { dir, cleanup } = tempDir('tf-durable-ack-');
    cleanups.push(cleanup);
    const statePath = join(dir, 'state.json');
    const journal = `${statePath}.journal`;
    /** The journal's bytes as of the last fsync that returned. */
    let durable = '';
    let fsyncs = 0;
    const held: (() => void)[] = [];
    let holding = true;
    const sync = async (handle: FileHandle, target: SyncTarget): Promise<void> => {
      if (target !== 'journal') return handle.sync();
      fsyncs++;
      const bytes = readFileSync(journal, 'utf8'); // what this fsync makes durable
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      await handle.sync();
      durable = bytes;
    };
    const session = await openState(createFileStateStore(statePath, { sync }), { command: 'apply' });
    let sent = 0;
    const client: ExecutorClient = {
      call: async (_op, _params, body) => {
        sent++;
        const selector = (body as { consumer_selector: string }).consumer_selector;
        return { outcome: 'done', body: { id: `rlp_${selector.slice(-3).padStart(21, '0')}` } };
      },
    };
    const done: string[] = [];
    const early: string[] = [];
    const changes = creates(40);
    const running = applyPlan(planOf(changes), {
      client,
      recorder: session,
      parallelism: 4,
      onEvent: (e) => {
        if (e.type !== 'done') return;
        const address = String(e.address);
        done.push(address);
        // Acknowledged: its record must be among the bytes an fsync already made durable.
        if (!durable.includes(JSON.stringify(address))) early.push(address);
      },
    });
    // The first record reaches the disk (real I/O: waited for, no time limit of its own); its fsync is held.
    while (held.length === 0) await new Promise((r) => setTimeout(r, 1));
    // From here on nothing touches the disk: the workers send on while records wait for the fsync
    // (4 workers × 16 records ahead > 40), so every request is answered within a few turns.
    for (let i = 0; i < 200 && sent < changes.length; i++) await tick();
    expect(sent).toBe(changes.length);
    // The first fsync is held: nothing is acknowledged; the other answers wait for the next.
    expect(fsyncs).toBe(1);
    expect(done).toEqual([]);
    holding = false;
    held.shift()!();
    const result = await running;
    await session.commit();
    await session.release();
    expect(early).toEqual([]);
    expect(result.done).toHaveLength(40);
    // The 39 records that arrived while the first fsync was held went out together in the next one.
    expect(fsyncs).toBe(2);
  });

  it('under the commit interval: answers that arrive meanwhile wait for it in one fsync, and none is done before', async () => {
    const { dir, cleanup } = tempDir('tf-durable-ack-');
    cleanups.push(cleanup);
    const statePath = join(dir, 'state.json');
    const { state, sync } = heldSync(`${statePath}.journal`);
    // The journal's clock stands still and its timer fires only when the test says.
    const timers: { fire: () => void; cancelled: boolean }[] = [];
    const journalCommit = {
      now: () => 0,
      schedule: (_ms: number, fn: () => void) => {
        const timer = { fire: fn, cancelled: false };
        timers.push(timer);
        return () => void (timer.cancelled = true);
      },
    };
    const store = createFileStateStore(statePath, { sync, journalCommit });
    const session = await openState(store, { command: 'apply' });
    const answers: (() => void)[] = [];
    const client: ExecutorClient = {
      call: async (_op, _params, body) => {
        await new Promise<void>((resolve) => answers.push(resolve));
        const selector = (body as { consumer_selector: string }).consumer_selector;
        return { outcome: 'done', body: { id: `rlp_${selector.slice(-3).padStart(21, '0')}` } };
      },
    };
    const answer = async (n: number) => {
      for (let i = 0; i < n; i++) {
        answers.shift()!();
        await tick();
      }
    };
    const done: string[] = [];
    const early: string[] = [];
    const running = applyPlan(planOf(creates(40)), {
      client,
      recorder: session,
      parallelism: 2,
      onEvent: (e) => {
        if (e.type !== 'done') return;
        done.push(String(e.address));
        if (!state.durable.includes(JSON.stringify(e.address))) early.push(String(e.address));
      },
    });
    let finished = false;
    void running.then(() => (finished = true));
    await until(() => answers.length === 2);
    await answer(1);
    await until(() => state.held.length === 1); // the first record's fsync, held
    await answer(10); // the workers send on: 2 × 16 records may wait
    expect(done).toEqual([]);
    state.holding = false;
    state.held.shift()!();
    // The first is durable and done; the 10 that arrived during its fsync wait for the interval, not done.
    await until(() => timers.length === 1);
    expect(done).toHaveLength(1);
    expect(state.fsyncs).toBe(1);
    timers[0]!.fire();
    await until(() => done.length === 11);
    expect(state.fsyncs).toBe(2);
    // The rest: answered as they come; each interval's wait fired, or ended by the workers when they run out.
    while (!finished) {
      if (answers.length > 0) await answer(1);
      for (const timer of timers.splice(0)) if (!timer.cancelled) timer.fire();
      await new Promise((r) => setTimeout(r, 1));
    }
    const result = await running;
    await session.commit();
    await session.release();
    expect(early).toEqual([]);
    expect(result.done).toHaveLength(40);
  });
});
