import { describe, expect, it } from 'vitest';
import { formatAddress, type Attributes } from '../resources/index.js';
import { PLAN_FORMAT_VERSION, type Change, type Plan } from '../plan/types.js';
import { applyPlan } from './executor.js';
import type { ExecutorClient, RecordEntry, Recorder } from './types.js';

const attrs = (selector: string): Attributes => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration: { action: 'block', limit: 10 },
});

function creates(n: number): Change[] {
  return Array.from({ length: n }, (_, i) => {
    const identity = ['oauth_authentication_api', 'client', `client_id:c${String(i).padStart(3, '0')}`];
    return {
      address: formatAddress('rate_limit_policy', identity),
      kind: 'rate_limit_policy',
      identity,
      action: 'create',
      before: null,
      after: attrs(identity[2]!),
      id: null,
      adopted: false,
      reason: { code: 'create' },
      source: null,
    };
  });
}

function plan(changes: Change[]): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    api: 'spec',
    state: { lineage: null, serial: 0 },
    changes,
    summary: { create: changes.length, update: 0, replace: 0, delete: 0, forget: 0, blocked: 0, no_op: 0 },
  };
}

/** A client whose creates wait until released, so that a test controls what is in flight. */
function gatedClient() {
  const sent: string[] = [];
  const waiting: (() => void)[] = [];
  let n = 0;
  const client: ExecutorClient = {
    call: async (op, _params, body) => {
      if (op.name === 'assignUserPermissions') return { outcome: 'done', body: undefined };
      if (op.name !== 'createRateLimitPolicy') throw new Error(`unused: ${op.name}`);
      sent.push(String((body as { consumer_selector?: unknown }).consumer_selector));
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { outcome: 'done', body: { id: `rlp_${++n}` } };
    },
  };
  const releaseAll = async () => {
    while (waiting.length > 0) {
      waiting.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { client, sent, waiting, releaseAll };
}

/** Records the first `ok` entries, then fails every record like a full disk. */
function failingRecorder(ok: number) {
  const recorded: RecordEntry[] = [];
  let calls = 0;
  const recorder: Recorder = {
    async record(entry) {
      if (++calls > ok) throw Object.assign(new Error('no space left on device'), { code: 'STATE_IO' });
      recorded.push(entry);
    },
  };
  return { recorder, recorded };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('applyPlan when recording fails', () => {
  it('sends nothing after the first record failure and keeps every acknowledged entry', async () => {
    const { client, sent, releaseAll } = gatedClient();
    const { recorder, recorded } = failingRecorder(5);
    const running = applyPlan(plan(creates(40)), { client, recorder, parallelism: 4 });
    for (let i = 0; i < 200 && sent.length < 40; i++) {
      await releaseAll();
      await tick();
    }
    const result = await running;
    // 5 recorded; the 6th fails; the others in flight then finish and are kept. A
    // worker sends on while its records are being made durable, but the failure is
    // known before the next gated answers come back: at most one record and one
    // request per worker are open when it is.
    expect(recorded).toHaveLength(5);
    expect(sent.length).toBeLessThanOrEqual(5 + 2 * 4);
    expect(result.done).toHaveLength(5);
    expect(result.unrecorded.length).toBe(sent.length - 5);
    expect(result.unrecorded.length).toBeGreaterThanOrEqual(1);
    expect(result.unrecorded.length).toBeLessThanOrEqual(2 * 4);
    for (const u of result.unrecorded) {
      expect(u.entry.op).toBe('put');
      expect(u.entry.op === 'put' && u.entry.resource.id).toMatch(/^rlp_/);
    }
    expect(result.notAttempted).toHaveLength(40 - sent.length);
    expect(result.stoppedBy).toMatchObject({ cause: 'record', message: 'no space left on device' });
  });

  it('with parallelism 1, sends at most one request after the failing record and keeps it', async () => {
    const { client, sent, releaseAll } = gatedClient();
    const { recorder } = failingRecorder(3);
    const changes = creates(10);
    const running = applyPlan(plan(changes), { client, recorder, parallelism: 1 });
    for (let i = 0; i < 50; i++) {
      await releaseAll();
      await tick();
    }
    const result = await running;
    // The 4th record fails while the 5th request is out (sent as the 4th was being recorded).
    expect(sent).toHaveLength(5);
    expect(result.unrecorded.map((u) => u.address)).toEqual([changes[3]!.address, changes[4]!.address]);
    expect(result.notAttempted).toHaveLength(5);
  });

  it('starts nothing new once the recorder reports that it cannot record (lost lock)', async () => {
    const { client, sent, releaseAll } = gatedClient();
    let lost: Error | null = null;
    const recorder: Recorder = { record: async () => undefined, failure: () => lost };
    const running = applyPlan(plan(creates(10)), { client, recorder, parallelism: 2 });
    await tick();
    expect(sent).toHaveLength(2);
    lost = new Error('the lock on pg workspace "w" was lost');
    await releaseAll();
    const result = await running;
    expect(sent).toHaveLength(2);
    expect(result.done).toHaveLength(2);
    expect(result.notAttempted).toHaveLength(8);
    expect(result.stoppedBy).toMatchObject({ cause: 'record' });
  });

  it('keeps the recorded part of a permission batch and returns the rest as unrecorded', async () => {
    const identity = (p: string) => ['auth0|u1', 'https://api/', p];
    const changes: Change[] = ['read:a', 'read:b', 'read:c'].map((p) => ({
      address: formatAddress('user_permission', identity(p)),
      kind: 'user_permission',
      identity: identity(p),
      action: 'create',
      before: null,
      after: { user_id: 'auth0|u1', resource_server_identifier: 'https://api/', permission_name: p },
      id: null,
      adopted: false,
      reason: { code: 'create' },
      source: null,
    }));
    const { client } = gatedClient();
    const { recorder, recorded } = failingRecorder(2);
    const result = await applyPlan(plan(changes), { client, recorder });
    expect(recorded).toHaveLength(2);
    expect(result.done).toHaveLength(2);
    expect(result.unrecorded.map((u) => u.address)).toEqual([changes[2]!.address]);
  });
});

describe('applyPlan overlapping records with requests', () => {
  it('sends the next requests while records are made durable, at most 16 records behind per worker', async () => {
    const sent: string[] = [];
    const client: ExecutorClient = {
      call: async (_op, _params, body) => {
        sent.push(String((body as { consumer_selector?: unknown }).consumer_selector));
        return { outcome: 'done', body: { id: `rlp_${sent.length}` } };
      },
    };
    const pending: (() => void)[] = [];
    const recorded: RecordEntry[] = [];
    const recorder: Recorder = {
      record: (entry) =>
        new Promise<void>((resolve) =>
          pending.push(() => {
            recorded.push(entry);
            resolve();
          }),
        ),
    };
    const events: string[] = [];
    const running = applyPlan(plan(creates(20)), {
      client,
      recorder,
      parallelism: 1,
      onEvent: (e) => events.push(e.type),
    });
    for (let i = 0; i < 100; i++) await tick();
    // 17 answered, none recorded: the 18th request waits for the first record.
    expect(sent).toHaveLength(17);
    expect(pending).toHaveLength(17);
    expect(events.filter((t) => t === 'done')).toHaveLength(0);
    pending.shift()!();
    for (let i = 0; i < 20; i++) await tick();
    expect(sent).toHaveLength(18);
    expect(events.filter((t) => t === 'done')).toHaveLength(1);
    for (let i = 0; i < 200 && (pending.length > 0 || sent.length < 20); i++) {
      pending.shift()?.();
      await tick();
    }
    const result = await running;
    expect(result.done).toHaveLength(20);
    expect(recorded).toHaveLength(20);
  });

  it('asks the recorder to flush only when a worker has nothing to send until a record is durable', async () => {
    const pending: (() => void)[] = [];
    const log: string[] = [];
    const recorder: Recorder = {
      record: () => new Promise<void>((resolve) => pending.push(resolve)),
      flush: () => log.push(`flush with ${pending.length} waiting`),
    };
    const answer = { outcome: 'done', body: { id: 'rlp_1' } } as const;
    // Records held: 17 answered and waiting, the worker may run no further ahead, so it asks for them now.
    const instant: ExecutorClient = { call: async () => answer };
    const held = applyPlan(plan(creates(40)), { client: instant, recorder, parallelism: 1 });
    for (let i = 0; i < 100; i++) await tick();
    expect(log).toEqual(['flush with 17 waiting']);
    let finished = false;
    void held.then(() => (finished = true));
    for (let i = 0; i < 500 && !finished; i++) {
      pending.splice(0).forEach((resolve) => resolve());
      await tick();
    }
    expect((await held).done).toHaveLength(40);
    // Records made durable as fast as answers come: no flush until the last request was answered.
    log.length = 0;
    const slow: ExecutorClient = { call: () => tick().then(() => answer) };
    const keptUp = applyPlan(plan(creates(40)), { client: slow, recorder, parallelism: 1 });
    for (let i = 0; i < 200 && log.length === 0; i++) {
      pending.splice(0).forEach((resolve) => resolve());
      await tick();
    }
    expect(log).toEqual(['flush with 1 waiting']);
    pending.splice(0).forEach((resolve) => resolve());
    expect((await keptUp).done).toHaveLength(40);
  });
});
