/**
 * The executor under API profile full: updates in place (PATCH, the same id,
 * the new attributes journalled), deletes of profiles by id and removals of
 * permissions batched per user, through the operations of the plan's profile.
 */
import { describe, expect, it } from 'vitest';
import { type Attributes, type KindName, type RecordedResource } from '../resources/index.js';
import type { Action, Change, Plan } from '../plan/types.js';
import { PLAN_FORMAT_VERSION, summarize } from '../plan/index.js';
import { applyPlan } from './executor.js';
import type { ExecutorClient } from './types.js';
import { memoryRecorder } from '../../test/helpers/recorder.js';
import { planChange } from '../../test/plan-builders.js';

const policyAttrs = (limit: number): Attributes => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'block', limit },
});
const profileAttrs = (name: string): Attributes => ({
  name,
  subject_token_type: 'urn:x:token',
  action_id: 'act_1',
  type: 'custom_authentication',
});
const grant = (user: string, name: string): Attributes => ({
  user_id: user,
  resource_server_identifier: 'https://api',
  permission_name: name,
});

function change(kind: KindName, attributes: Attributes, action: Action, extra: Partial<Change> = {}): Change {
  const identity =
    kind === 'rate_limit_policy'
      ? ['oauth_authentication_api', 'client', 'default']
      : kind === 'token_exchange_profile'
        ? ['urn:x:token']
        : [String(attributes.user_id), 'https://api', String(attributes.permission_name)];
  return planChange(kind, identity, action, extra);
}

function plan(changes: Change[], api: 'spec' | 'full' = 'full'): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    api,
    state: { lineage: null, serial: 0 },
    changes,
    summary: summarize(changes),
  };
}

type Answer = { outcome: 'done'; body: unknown } | { outcome: 'present' | 'gone' };

function fakeClient(answers: Record<string, Answer> = {}) {
  const calls: { op: string; method: string; params: Record<string, string>; body: unknown }[] = [];
  const client: ExecutorClient = {
    call: async (op, params, body) => {
      calls.push({ op: op.name, method: op.method, params: { ...params }, body });
      return answers[op.name] ?? { outcome: 'done', body: undefined };
    },
  };
  return { client, calls };
}

describe('applyPlan under API profile full', () => {
  it('updates a policy with one PATCH of its configuration and records the new attributes under the same id', async () => {
    const policyBody = { id: 'rlp_1', ...policyAttrs(500), created_at: '2026-01-01T00:00:00.000Z' };
    const { client, calls } = fakeClient({ updateRateLimitPolicy: { outcome: 'done', body: policyBody } });
    const { recorder, entries } = memoryRecorder();
    const result = await applyPlan(
      plan([
        change('rate_limit_policy', {}, 'update', {
          id: 'rlp_1',
          before: policyAttrs(100),
          after: policyAttrs(500),
        }),
      ]),
      { client, recorder },
    );
    expect(calls).toEqual([
      {
        op: 'updateRateLimitPolicy',
        method: 'PATCH',
        params: { id: 'rlp_1' },
        body: { configuration: { action: 'block', limit: 500 } },
      },
    ]);
    expect(result.done).toEqual([expect.objectContaining({ action: 'update', outcome: 'updated' })]);
    expect(entries).toEqual([
      {
        op: 'put',
        resource: expect.objectContaining({
          id: 'rlp_1',
          attributes: policyAttrs(500),
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      },
    ]);
  });

  it('renames a profile with a PATCH of its name only', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    await applyPlan(
      plan([
        change('token_exchange_profile', {}, 'update', {
          id: 'tep_1',
          before: profileAttrs('old'),
          after: profileAttrs('new'),
        }),
      ]),
      { client, recorder },
    );
    expect(calls).toEqual([
      { op: 'updateTokenExchangeProfile', method: 'PATCH', params: { id: 'tep_1' }, body: { name: 'new' } },
    ]);
    expect(entries).toEqual([
      { op: 'put', resource: expect.objectContaining({ id: 'tep_1', attributes: profileAttrs('new') }) },
    ]);
  });

  it('keeps the recorded created_at when the PATCH answers without a body (profiles)', async () => {
    const { client } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const c = change('token_exchange_profile', {}, 'update', {
      id: 'tep_1',
      before: profileAttrs('old'),
      after: profileAttrs('new'),
    });
    const record: RecordedResource = {
      kind: c.kind,
      address: c.address,
      identity: c.identity,
      attributes: profileAttrs('old'),
      id: 'tep_1',
      created_at: '2026-01-01T00:00:00.000Z',
    };
    await applyPlan(plan([c]), {
      client,
      recorder: { ...recorder, recorded: (a) => (a === c.address ? record : null) },
    });
    expect(entries).toEqual([{ op: 'put', resource: { ...record, attributes: profileAttrs('new') } }]);
  });

  it('takes created_at from the PATCH answer over the record when the answer has one (policies)', async () => {
    const policyBody = { id: 'rlp_1', ...policyAttrs(500), created_at: '2026-02-02T00:00:00.000Z' };
    const { client } = fakeClient({ updateRateLimitPolicy: { outcome: 'done', body: policyBody } });
    const { recorder, entries } = memoryRecorder();
    const c = change('rate_limit_policy', {}, 'update', {
      id: 'rlp_1',
      before: policyAttrs(100),
      after: policyAttrs(500),
    });
    const recorded = (): RecordedResource => ({
      kind: c.kind,
      address: c.address,
      identity: c.identity,
      attributes: policyAttrs(100),
      id: 'rlp_1',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    await applyPlan(plan([c]), { client, recorder: { ...recorder, recorded } });
    expect(entries).toEqual([
      { op: 'put', resource: expect.objectContaining({ created_at: '2026-02-02T00:00:00.000Z' }) },
    ]);
  });

  it('sends the same PATCH again for the same change (a re-run after a kill is idempotent)', async () => {
    const { client, calls } = fakeClient();
    const change1 = change('token_exchange_profile', {}, 'update', {
      id: 'tep_1',
      before: profileAttrs('old'),
      after: profileAttrs('new'),
    });
    await applyPlan(plan([change1]), { client, recorder: memoryRecorder().recorder });
    await applyPlan(plan([change1]), { client, recorder: memoryRecorder().recorder });
    expect(calls[1]).toEqual(calls[0]);
  });

  it('removes the record when the update answers 404 (deleted outside tenantform), so the next plan creates it', async () => {
    const { client } = fakeClient({ updateRateLimitPolicy: { outcome: 'gone' } });
    const { recorder, entries } = memoryRecorder();
    const c = change('rate_limit_policy', {}, 'update', {
      id: 'rlp_1',
      before: policyAttrs(1),
      after: policyAttrs(2),
    });
    const result = await applyPlan(plan([c]), { client, recorder });
    expect(result.done[0]?.outcome).toBe('already-gone');
    expect(entries).toEqual([{ op: 'remove', address: c.address }]);
  });

  it('deletes a profile by id and removes its record', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const c = change('token_exchange_profile', {}, 'delete', { id: 'tep_1', before: profileAttrs('x') });
    await applyPlan(plan([c]), { client, recorder });
    expect(calls).toEqual([
      { op: 'deleteTokenExchangeProfile', method: 'DELETE', params: { id: 'tep_1' }, body: undefined },
    ]);
    expect(entries).toEqual([{ op: 'remove', address: c.address }]);
  });

  it('removes permissions in one DELETE per user per batch and removes every record', async () => {
    const { client, calls } = fakeClient();
    const { recorder, entries } = memoryRecorder();
    const removed = [
      grant('auth0|a', 'r1'),
      grant('auth0|a', 'r2'),
      grant('auth0|a', 'r3'),
      grant('auth0|b', 'r1'),
    ].map((g) => change('user_permission', g, 'delete', { before: g }));
    const result = await applyPlan(plan(removed), { client, recorder, batchSize: 2 });
    expect(
      calls.map((c) => [
        c.op,
        c.method,
        c.params.user_id,
        (c.body as { permissions: unknown[] }).permissions.length,
      ]),
    ).toEqual([
      ['removeUserPermissions', 'DELETE', 'auth0|a', 2],
      ['removeUserPermissions', 'DELETE', 'auth0|a', 1],
      ['removeUserPermissions', 'DELETE', 'auth0|b', 1],
    ]);
    expect(calls[0]!.body).toEqual({
      permissions: [
        { resource_server_identifier: 'https://api', permission_name: 'r1' },
        { resource_server_identifier: 'https://api', permission_name: 'r2' },
      ],
    });
    expect(result.done.map((d) => d.outcome)).toEqual(['deleted', 'deleted', 'deleted', 'deleted']);
    expect(entries.map((e) => (e.op === 'remove' ? e.address : null)).sort()).toEqual(
      removed.map((c) => c.address).sort(),
    );
  });

  it('keeps assigning and removing permissions of one user in separate requests', async () => {
    const { client, calls } = fakeClient();
    const changes = [
      change('user_permission', grant('auth0|a', 'new'), 'create', { after: grant('auth0|a', 'new') }),
      change('user_permission', grant('auth0|a', 'old'), 'delete', { before: grant('auth0|a', 'old') }),
    ];
    await applyPlan(plan(changes), { client, recorder: memoryRecorder().recorder });
    expect(calls.map((c) => c.method).sort()).toEqual(['DELETE', 'POST']);
  });

  it('sends a removed permission replaced with --replace as its own DELETE with a body, then the POST', async () => {
    const { client, calls } = fakeClient();
    const g = grant('auth0|a', 'r1');
    await applyPlan(plan([change('user_permission', g, 'replace', { before: g, after: g })]), {
      client,
      recorder: memoryRecorder().recorder,
    });
    expect(calls.map((c) => [c.method, c.body])).toEqual([
      ['DELETE', { permissions: [{ resource_server_identifier: 'https://api', permission_name: 'r1' }] }],
      ['POST', { permissions: [{ resource_server_identifier: 'https://api', permission_name: 'r1' }] }],
    ]);
  });
});
