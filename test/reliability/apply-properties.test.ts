/**
 * Property-based tests of plan → apply against the emulator, in-process.
 * Inputs: a random desired set, a random recorded state (ids that are real on
 * the tenant, stale ids the tenant never had, resources adopted through 409)
 * and random resources present on the tenant but not recorded. Properties:
 * after one apply the next plan holds only the changes that were blocked to
 * begin with; planning ignores input order; a second plan-and-apply sends no
 * request and changes neither the state nor the tenant.
 * TENANTFORM_FC_SEED=n replays another seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiClient,
  resolveTarget,
  type ApiClient,
  type RateLimitPolicyCreate,
  type TokenExchangeProfileCreate,
} from '../../src/api/index.js';
import { applyPlan } from '../../src/apply/index.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { planChanges } from '../../src/plan/index.js';
import type { Attributes, KindName, RecordedResource } from '../../src/resources/index.js';
import { createMemoryStateStore, openState, type StateSession } from '../../src/state/index.js';
import { desired, recorded, shuffled, stateDoc } from '../plan-builders.js';

const SEED = Number(process.env.TENANTFORM_FC_SEED ?? 20_240_601);
const RUNS = 50;

interface Item {
  kind: KindName;
  attributes: Attributes;
}

const CONFIGS = [
  { action: 'allow' },
  { action: 'block', limit: 0 },
  { action: 'log', limit: 10_000 },
  { action: 'redirect', limit: 5, redirect_uri: 'https://example.com/slow' },
];
const policyArb = fc
  .record({
    selector: fc.constantFrom(
      'default',
      'cimd_clients',
      'third_party_clients',
      'client_id:a',
      'client_id:b.c~d',
      'client_id:https://x.example/c?d=1',
    ),
    configuration: fc.constantFrom(...CONFIGS),
  })
  .map(({ selector, configuration }): Item => ({
    kind: 'rate_limit_policy',
    attributes: {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: selector,
      configuration,
    },
  }));
const permissionArb = fc
  .record({
    user: fc.constantFrom('auth0|u1', 'auth0|a/b', 'sms|?#%', 'x/../y'),
    server: fc.constantFrom('https://a.example/', 'urn:b'),
    name: fc.constantFrom('read', 'write:x'),
  })
  .map(({ user, server, name }): Item => ({
    kind: 'user_permission',
    attributes: { user_id: user, resource_server_identifier: server, permission_name: name },
  }));
const profileArb = fc
  .record({
    type: fc.constantFrom('urn:tf:one', 'urn:tf:two', 'https://tf.example/three'),
    variant: fc.constantFrom(['Alpha', 'a1'], ['Beta', 'a2']),
  })
  .map(({ type, variant }): Item => ({
    kind: 'token_exchange_profile',
    attributes: {
      name: variant[0],
      subject_token_type: type,
      action_id: variant[1],
      type: 'custom_authentication',
    },
  }));
const itemArb = fc.oneof(policyArb, permissionArb, profileArb);
const addressOf = (item: Item): string => desired(item.kind, item.attributes).address;

type How = 'real' | 'stale' | 'adopted';
const inputsArb = fc.record({
  want: fc.uniqueArray(itemArb, { selector: addressOf, maxLength: 10 }),
  have: fc.uniqueArray(fc.record({ item: itemArb, how: fc.constantFrom<How>('real', 'stale', 'adopted') }), {
    selector: (r) => addressOf(r.item),
    maxLength: 8,
  }),
  /** On the tenant but not recorded (ignored where the address is recorded). */
  tenantOnly: fc.uniqueArray(itemArb, { selector: addressOf, maxLength: 4 }),
  order: fc.nat(),
});
type Inputs = typeof inputsArb extends fc.Arbitrary<infer T> ? T : never;

let emulator: EmulatorHandle;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = createApiClient({
    target: resolveTarget({ baseUrl: emulator.baseUrl }, {}),
    credentials: { kind: 'token', token: emulator.token },
  });
});
afterAll(async () => {
  await client.close();
  await emulator.stop();
});

/** Puts `item` on the tenant; its id (null for permissions). */
async function create(item: Item): Promise<string | null> {
  const a = item.attributes;
  if (item.kind === 'user_permission') {
    await client.assignUserPermissions(String(a.user_id), [
      {
        resource_server_identifier: String(a.resource_server_identifier),
        permission_name: String(a.permission_name),
      },
    ]);
    return null;
  }
  const result =
    item.kind === 'rate_limit_policy'
      ? await client
          .createRateLimitPolicy(a as unknown as RateLimitPolicyCreate)
          .then((r) => (r.outcome === 'created' ? r.policy.id : null))
      : await client
          .createTokenExchangeProfile(a as unknown as TokenExchangeProfileCreate)
          .then((r) => (r.outcome === 'created' ? r.profile.id : null));
  if (result === null) throw new Error(`setup: ${addressOf(item)} was already on the tenant`);
  return result;
}

/** Empties the tenant, then builds it and the recorded state from the inputs. */
async function arrange(inputs: Inputs): Promise<RecordedResource[]> {
  emulator.reset();
  const resources: RecordedResource[] = [];
  let stale = 0;
  for (const { item, how } of inputs.have) {
    const id = how === 'stale' ? null : await create(item);
    const fake = item.kind === 'rate_limit_policy' ? `rlp_stale${++stale}` : `tep_stale${++stale}`;
    if (item.kind === 'user_permission') resources.push(recorded(item.kind, item.attributes));
    else if (how === 'adopted') resources.push(recorded(item.kind, item.attributes, { adopted: true }));
    else resources.push(recorded(item.kind, item.attributes, { id: id ?? fake }));
  }
  const recordedAddresses = new Set(resources.map((r) => r.address));
  const onTenant = new Set<string>();
  for (const item of inputs.tenantOnly) {
    // One tenant resource per identity: a policy's identity leaves out its configuration.
    const key = JSON.stringify(desired(item.kind, item.attributes).identity) + item.kind;
    if (recordedAddresses.has(addressOf(item)) || onTenant.has(key)) continue;
    onTenant.add(key);
    await create(item);
  }
  return resources;
}

/** Opens a session on a memory store holding `resources`, plans and applies (blocked changes left out). */
async function applyOnce(inputs: Inputs, resources: RecordedResource[]) {
  const want = inputs.want.map((i) => desired(i.kind, i.attributes));
  const session: StateSession = await openState(createMemoryStateStore(stateDoc(resources)), {
    command: 'apply',
  });
  const plan = planChanges(want, session.doc);
  const result = await applyPlan(plan, { client, recorder: session, skipBlocked: true, parallelism: 4 });
  await session.commit();
  return { want, session, plan, result };
}

const blockedOf = (changes: readonly { action: string; address: string }[]) =>
  changes.filter((c) => c.action === 'blocked').map((c) => c.address);

describe('plan → apply on the emulator', () => {
  it('leaves a next plan with only the changes that were blocked from the start', async () => {
    await fc.assert(
      fc.asyncProperty(inputsArb, async (inputs) => {
        const { want, session, plan, result } = await applyOnce(inputs, await arrange(inputs));
        try {
          expect(result.failed).toEqual([]);
          const next = planChanges(want, session.doc);
          expect(next.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked')).toEqual([]);
          expect(blockedOf(next.changes)).toEqual(blockedOf(plan.changes));

          // The tenant holds every desired resource that was not blocked, with the recorded id;
          // except a stale record the plan kept as is: with no read operation, nothing can notice it.
          const snapshot = emulator.snapshot();
          const blocked = new Set(blockedOf(plan.changes));
          const stale = new Set(inputs.have.filter((h) => h.how === 'stale').map((h) => addressOf(h.item)));
          const untouched = new Set(plan.changes.filter((c) => c.action === 'no-op').map((c) => c.address));
          for (const r of session.doc.resources) {
            if (blocked.has(r.address) || !want.some((w) => w.address === r.address)) continue;
            if (stale.has(r.address) && untouched.has(r.address)) continue;
            const a = r.attributes;
            if (r.kind === 'user_permission') {
              const grants = snapshot.userPermissions[String(a.user_id)] ?? [];
              const match = grants.filter(
                (g) =>
                  g.resource_server_identifier === a.resource_server_identifier &&
                  g.permission_name === a.permission_name,
              );
              expect(match, r.address).toHaveLength(1);
            } else if (r.kind === 'rate_limit_policy') {
              const onTenant = snapshot.rateLimitPolicies.filter(
                (p) => p.consumer_selector === a.consumer_selector,
              );
              expect(onTenant, r.address).toHaveLength(1);
              if (!r.adopted) expect(onTenant[0]).toMatchObject({ id: r.id, configuration: a.configuration });
            } else {
              const onTenant = snapshot.tokenExchangeProfiles.filter(
                (p) => p.subject_token_type === a.subject_token_type,
              );
              expect(onTenant, r.address).toHaveLength(1);
              if (!r.adopted)
                expect(onTenant[0]).toMatchObject({ id: r.id, name: a.name, action_id: a.action_id });
            }
          }
          // Deleted policies are gone from the tenant.
          for (const change of plan.changes.filter((c) => c.action === 'delete')) {
            expect(snapshot.rateLimitPolicies.some((p) => p.id === change.id)).toBe(false);
          }
        } finally {
          await session.release();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('plans the same changes whatever the order of the desired and recorded resources', () => {
    fc.assert(
      fc.property(inputsArb, (inputs) => {
        const want = inputs.want.map((i) => desired(i.kind, i.attributes));
        const have = inputs.have.map(({ item, how }, n) =>
          recorded(
            item.kind,
            item.attributes,
            how === 'adopted' || item.kind === 'user_permission'
              ? { adopted: how === 'adopted' }
              : { id: `x_${n}` },
          ),
        );
        const plan = planChanges(want, stateDoc(have));
        const again = planChanges(shuffled(want, inputs.order), stateDoc(shuffled(have, inputs.order + 1)));
        expect(again).toEqual(plan);
        expect(JSON.stringify(again)).toBe(JSON.stringify(plan));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('sends nothing and changes nothing when plan and apply run a second time', async () => {
    await fc.assert(
      fc.asyncProperty(inputsArb, async (inputs) => {
        const first = await applyOnce(inputs, await arrange(inputs));
        const stateAfter = structuredClone(first.session.doc);
        await first.session.release();
        const tenantAfter = emulator.snapshot();
        const requests = emulator.requestCount();

        const second = await applyOnce(inputs, stateAfter.resources);
        try {
          expect(second.result.done).toEqual([]);
          expect(second.result.failed).toEqual([]);
          expect(emulator.requestCount()).toBe(requests);
          expect(second.session.doc.resources).toEqual(stateAfter.resources);
          expect(emulator.snapshot()).toEqual(tenantAfter);
        } finally {
          await second.session.release();
        }
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });
});
