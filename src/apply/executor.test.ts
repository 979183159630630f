import { describe, expect, it } from 'vitest';
import { formatAddress, type Attributes, type RecordedResource } from '../resources/index.js';
import type { Change, Plan } from '../plan/types.js';
import { PLAN_FORMAT_VERSION, PlanError } from '../plan/index.js';
import { applyPlan, countRequests } from './executor.js';
import type { ExecutorClient } from './types.js';
import { memoryRecorder } from '../../test/helpers/recorder.js';
import { planChange } from '../../test/plan-builders.js';

const policyAttrs = (selector: string, limit = 10): Attributes => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration: { action: 'block', limit },
});

const change = planChange;

function plan(changes: Change[]): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    api: 'spec',
    state: { lineage: null, serial: 0 },
    changes,
    summary: { create: 0, update: 0, replace: 0, delete: 0, forget: 0, blocked: 0, no_op: 0 },
  };
}

type Answer = { outcome: 'done'; body: unknown } | { outcome: 'present' | 'gone' };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bodies are the kinds' request bodies
type Handler = (params: Readonly<Record<string, string>>, body: any) => Promise<Answer>;

/** A client that answers each operation (by descriptor name) like the API would. */
function fakeClient(overrides: Record<string, Handler> = {}) {
  const calls: string[] = [];
  let n = 0;
  const handlers: Record<string, Handler> = {
    createRateLimitPolicy: async (_params, body) => {
      calls.push(`POST policy ${String(body.consumer_selector)}`);
      return { outcome: 'done', body: { id: `rlp_${++n}`, created_at: '2026-01-01T00:00:00.000Z' } };
    },
    deleteRateLimitPolicy: async (params) => {
      calls.push(`DELETE ${params.id}`);
      return { outcome: 'done', body: undefined };
    },
    assignUserPermissions: async (params, body) => {
      calls.push(`POST perms ${params.user_id} x${body.permissions.length}`);
      return { outcome: 'done', body: undefined };
    },
    createTokenExchangeProfile: async (_params, body) => {
      calls.push(`POST profile ${String(body.subject_token_type)}`);
      return { outcome: 'done', body: { id: `tep_${++n}` } };
    },
    ...overrides,
  };
  const client: ExecutorClient = { call: (op, params, body) => handlers[op.name]!(params, body) };
  return { client, calls };
}

describe('applyPlan', () => {
  it('creates policies and profiles and records their ids', async () => {
    const { client } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const p = plan([
      change('rate_limit_policy', ['oauth_authentication_api', 'client', 'default'], 'create', {
        after: policyAttrs('default'),
      }),
      change('token_exchange_profile', ['urn:x:token'], 'create', {
        after: {
          name: 'X',
          subject_token_type: 'urn:x:token',
          action_id: 'a',
          type: 'custom_authentication',
        },
      }),
    ]);
    const result = await applyPlan(p, { client, recorder });
    expect(result.done.map((d) => d.outcome)).toEqual(['created', 'created']);
    const puts = entries.filter((e) => e.op === 'put').map((e) => (e.op === 'put' ? e.resource.id : null));
    expect(puts.sort()).toEqual(['rlp_1', 'tep_2'].sort());
  });

  it('treats 409 on create as already present: recorded as adopted with no id', async () => {
    const { client } = fakeClient({ createRateLimitPolicy: async () => ({ outcome: 'present' }) });
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([change('rate_limit_policy', ['r', 'c', 'default'], 'create', { after: policyAttrs('default') })]),
      { client, recorder },
    );
    expect(result.done[0]?.outcome).toBe('adopted');
    expect(entries[0]).toMatchObject({ op: 'put', resource: { id: null, adopted: true } });
  });

  it('looks a 409 up where the tenant can be read: records its id and live settings, and says what differs', async () => {
    const { client } = fakeClient({ createRateLimitPolicy: async () => ({ outcome: 'present' }) });
    const asked: unknown[] = [];
    const reading: ExecutorClient = {
      ...client,
      lookup: async (kind, attributes) => {
        asked.push([kind, attributes.consumer_selector]);
        return { id: 'rlp_live', attributes: policyAttrs('default', 99) };
      },
    };
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([change('rate_limit_policy', ['r', 'c', 'default'], 'create', { after: policyAttrs('default') })]),
      { client: reading, recorder },
    );
    expect(asked).toEqual([['rate_limit_policy', 'default']]);
    expect(result.done[0]).toMatchObject({
      outcome: 'adopted',
      adoption: { id: 'rlp_live', differs: ['configuration.limit'] },
    });
    expect(entries[0]).toEqual({
      op: 'put',
      resource: expect.objectContaining({ id: 'rlp_live', attributes: policyAttrs('default', 99) }),
    });
    expect((entries[0] as { resource: RecordedResource }).resource.adopted).toBeUndefined();
  });

  it('treats 404 on delete as already gone and removes the record', async () => {
    const { client } = fakeClient({ deleteRateLimitPolicy: async () => ({ outcome: 'gone' }) });
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([
        change('rate_limit_policy', ['r', 'c', 'default'], 'delete', {
          id: 'rlp_9',
          before: policyAttrs('default'),
        }),
      ]),
      { client, recorder },
    );
    expect(result.done[0]?.outcome).toBe('already-gone');
    expect(entries).toEqual([
      { op: 'remove', address: formatAddress('rate_limit_policy', ['r', 'c', 'default']) },
    ]);
  });

  it('deletes a replaced policy before creating it again, recording both steps', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([
        change('rate_limit_policy', ['r', 'c', 'default'], 'replace', {
          id: 'rlp_old',
          before: policyAttrs('default', 1),
          after: policyAttrs('default', 2),
        }),
      ]),
      { client, recorder },
    );
    expect(calls).toEqual(['DELETE rlp_old', 'POST policy default']);
    expect(entries.map((e) => e.op)).toEqual(['remove', 'put']);
    expect(result.done[0]?.outcome).toBe('replaced');
  });

  it('batches permissions per user into one request per batch', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const changes: Change[] = [];
    for (const user of ['auth0|a', 'auth0|b']) {
      for (let i = 0; i < 5; i++) {
        const after = { user_id: user, resource_server_identifier: 'https://api/', permission_name: `p${i}` };
        changes.push(change('user_permission', [user, 'https://api/', `p${i}`], 'create', { after }));
      }
    }
    const p = plan(changes);
    expect(countRequests(p, { batchSize: 2 })).toBe(6);
    await applyPlan(p, { client, recorder, batchSize: 2 });
    expect(calls.sort()).toEqual(
      [
        'POST perms auth0|a x2',
        'POST perms auth0|a x2',
        'POST perms auth0|a x1',
        'POST perms auth0|b x2',
        'POST perms auth0|b x2',
        'POST perms auth0|b x1',
      ].sort(),
    );
    expect(entries).toHaveLength(10);
  });

  it('forgets without sending a request', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    await applyPlan(plan([change('token_exchange_profile', ['urn:x:y'], 'forget')]), { client, recorder });
    expect(calls).toEqual([]);
    expect(entries).toEqual([
      { op: 'remove', address: formatAddress('token_exchange_profile', ['urn:x:y']) },
    ]);
  });

  it('refuses a plan with blocked changes unless told to skip them, sending nothing', async () => {
    const { client, calls } = fakeClient();
    const { recorder } = memoryRecorder();
    const p = plan([
      change('token_exchange_profile', ['urn:x:y'], 'blocked', {
        reason: { code: 'cannot-change', paths: ['name'] },
      }),
      change('rate_limit_policy', ['r', 'c', 'default'], 'create', { after: policyAttrs('default') }),
    ]);
    await expect(applyPlan(p, { client, recorder })).rejects.toBeInstanceOf(PlanError);
    expect(calls).toEqual([]);
    const result = await applyPlan(p, { client, recorder, skipBlocked: true });
    expect(result.skipped).toHaveLength(1);
    expect(result.done).toHaveLength(1);
  });

  it('reports failures, keeps going, and records what succeeded', async () => {
    const { client } = fakeClient({
      createRateLimitPolicy: async (_params, body) => {
        if (body.consumer_selector === 'cimd_clients')
          throw Object.assign(new Error('boom'), { code: 'API_SERVER_ERROR' });
        return { outcome: 'done', body: { id: 'rlp_ok' } };
      },
    });
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([
        change('rate_limit_policy', ['r', 'c', 'cimd_clients'], 'create', {
          after: policyAttrs('cimd_clients'),
        }),
        change('rate_limit_policy', ['r', 'c', 'default'], 'create', { after: policyAttrs('default') }),
      ]),
      { client, recorder, parallelism: 1 },
    );
    expect(result.failed).toEqual([expect.objectContaining({ message: 'boom', code: 'API_SERVER_ERROR' })]);
    expect(result.done).toHaveLength(1);
    expect(entries).toHaveLength(1);
  });

  it('stops scheduling after an authentication failure and lists the rest as not attempted', async () => {
    const { client } = fakeClient({
      createRateLimitPolicy: async () => {
        throw Object.assign(new Error('unauthorized'), { code: 'API_UNAUTHORIZED' });
      },
    });
    const { recorder } = memoryRecorder();
    const changes = ['a', 'b', 'c'].map((s) =>
      change('rate_limit_policy', ['r', 'c', `client_id:${s}`], 'create', {
        after: policyAttrs(`client_id:${s}`),
      }),
    );
    const result = await applyPlan(plan(changes), { client, recorder, parallelism: 1 });
    expect(result.failed).toHaveLength(1);
    expect(result.notAttempted).toHaveLength(2);
  });

  it.each([
    ['API_UNREACHABLE', 'is unreachable'],
    ['API_RATE_LIMITED', 'answered nothing but 429 for the rate-limit timeout'],
  ])(
    'stops scheduling on %s (the tenant %s); the operations refused unsent are not attempted',
    async (code) => {
      let calls = 0;
      const { client } = fakeClient({
        createRateLimitPolicy: async () => {
          const mine = ++calls;
          await new Promise((r) => setImmediate(r));
          // The first call gave up on the connection; the others in flight were then refused unsent.
          const attempts = mine === 1 ? 4 : 0;
          throw Object.assign(new Error(mine === 1 ? 'Cannot reach the tenant at X' : 'not sent'), {
            code,
            attempts,
          });
        },
      });
      const { recorder } = memoryRecorder();
      const changes = Array.from({ length: 10 }, (_, i) =>
        change('rate_limit_policy', ['r', 'c', `client_id:${i}`], 'create', {
          after: policyAttrs(`client_id:${i}`),
        }),
      );
      const result = await applyPlan(plan(changes), { client, recorder, parallelism: 3 });
      expect(calls).toBe(3);
      expect(result.failed.map((f) => f.message)).toEqual(['Cannot reach the tenant at X']);
      expect(result.notAttempted).toHaveLength(9);
    },
  );

  it('counts an operation stopped before its request was sent (API_ABORTED, 0 attempts) as not attempted, not failed (issue 35, item 15)', async () => {
    let calls = 0;
    const { client } = fakeClient({
      createRateLimitPolicy: async () => {
        const mine = ++calls;
        await new Promise((r) => setImmediate(r));
        // The first was in flight when the run stopped; the others were still waiting for their turn.
        throw Object.assign(
          new Error('createRateLimitPolicy: POST /rate-limit-policies was stopped before it completed'),
          {
            code: 'API_ABORTED',
            attempts: mine === 1 ? 1 : 0,
          },
        );
      },
    });
    const { recorder } = memoryRecorder();
    const changes = Array.from({ length: 5 }, (_, i) =>
      change('rate_limit_policy', ['r', 'c', `client_id:${i}`], 'create', {
        after: policyAttrs(`client_id:${i}`),
      }),
    );
    const result = await applyPlan(plan(changes), { client, recorder, parallelism: 3 });
    expect(result.failed.map((f) => f.address)).toEqual([changes[0]!.address]);
    expect(result.notAttempted.map((n) => n.address)).toEqual(changes.slice(1).map((c) => c.address));
  });

  it('never runs more than `parallelism` operations at once', async () => {
    let inFlight = 0;
    let peak = 0;
    const { client } = fakeClient({
      createRateLimitPolicy: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return { outcome: 'done', body: { id: 'rlp_x' } };
      },
    });
    const { recorder } = memoryRecorder();
    const changes = Array.from({ length: 20 }, (_, i) =>
      change('rate_limit_policy', ['r', 'c', `client_id:${i}`], 'create', {
        after: policyAttrs(`client_id:${i}`),
      }),
    );
    await applyPlan(plan(changes), { client, recorder, parallelism: 3 });
    expect(peak).toBe(3);
  });
});
