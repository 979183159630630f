import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applicableChanges,
  planChanges,
  planProblems,
  openPlanFile,
  readPlanFile,
  renderJson,
  renderMarkdown,
  renderText,
  serializePlan,
  type Plan,
} from '../src/plan/index.js';
import type { DesiredResource, RecordedResource } from '../src/resources/index.js';
import { checkSchema } from '../src/schemas/index.js';
import { desired, permission, policy, profile, recorded, shuffled, stateDoc } from './plan-builders.js';

const KEY = Buffer.alloc(32, 3);

/** Small pools, so that generated desired and recorded sets overlap often. */
const selector = fc.constantFrom('default', 'cimd_clients', 'client_id:a', 'client_id:B', 'client_id:a|b');
const configuration = fc.oneof(
  fc.constant({ action: 'allow' }),
  fc.record({ action: fc.constantFrom('block', 'log'), limit: fc.constantFrom(0, 1, 10_000) }),
);
const desiredArb: fc.Arbitrary<DesiredResource> = fc.oneof(
  fc.tuple(selector, configuration).map(([s, c]) => desired('rate_limit_policy', policy(s, c))),
  fc
    .tuple(fc.constantFrom('auth0|u1', 'auth0|u2'), fc.constantFrom('read', 'write', 'a"b'))
    .map(([u, p]) => desired('user_permission', permission(u, 'https://api', p))),
  fc
    .tuple(fc.constantFrom('urn:a', 'urn:b', 'urn:é'), fc.constantFrom('one', 'two'))
    .map(([t, name]) => desired('token_exchange_profile', profile(t, { name }))),
);
const recordedArb: fc.Arbitrary<RecordedResource> = fc
  .tuple(desiredArb, fc.constantFrom<'id' | 'adopted' | 'imported'>('id', 'adopted', 'imported'), fc.nat(999))
  .map(([d, how, n]) =>
    recorded(d.kind, d.attributes, {
      id: how === 'adopted' || d.kind === 'user_permission' ? null : `x_${n}`,
      adopted: how !== 'id',
    }),
  );

function unique<T extends { address: string }>(items: T[]): T[] {
  const byAddress = new Map(items.map((item) => [item.address, item]));
  return [...byAddress.values()];
}

const inputs = fc.record({
  want: fc.array(desiredArb, { maxLength: 12 }).map(unique),
  have: fc.array(recordedArb, { maxLength: 12 }).map(unique),
  seed: fc.nat(),
});

/** What the state would hold after apply did every applicable change (ids from a counter). */
function appliedState(plan: Plan, have: RecordedResource[]): RecordedResource[] {
  const byAddress = new Map(have.map((r) => [r.address, r]));
  let n = 0;
  for (const change of applicableChanges(plan, { skipBlocked: true })) {
    if (change.action === 'delete' || change.action === 'forget') byAddress.delete(change.address);
    else byAddress.set(change.address, recorded(change.kind, change.after!, { id: `new_${++n}` }));
  }
  return [...byAddress.values()];
}

describe('planChanges properties', () => {
  it('plans every address exactly once, in the same order whatever the input order', () => {
    fc.assert(
      fc.property(inputs, ({ want, have, seed }) => {
        const plan = planChanges(want, stateDoc(have));
        const again = planChanges(shuffled(want, seed), stateDoc(shuffled(have, seed + 1)));
        expect(renderJson(again)).toBe(renderJson(plan));
        const expected = new Set([...want, ...have].map((r) => r.address));
        expect(plan.changes.map((c) => c.address).sort()).toEqual([...expected].sort());
        expect(planProblems(plan)).toEqual([]);
      }),
      { seed: 20260301, numRuns: 300 },
    );
  });

  it('makes plans that match the schema, survive a plan file and render without throwing', () => {
    fc.assert(
      fc.property(inputs, ({ want, have }) => {
        const plan = planChanges(want, stateDoc(have));
        expect(checkSchema('plan', JSON.parse(renderJson(plan)))).toEqual([]);
        const text = serializePlan(
          plan,
          {
            createdAt: '2026-01-01T00:00:00Z',
            toolVersion: 't',
            stateLocation: { backend: 'file', path: '/s/state.json' },
            target: null,
          },
          KEY,
        );
        expect(renderJson(readPlanFile(openPlanFile(text, 'p.json'), KEY, 'key').plan)).toBe(
          renderJson(plan),
        );
        expect(renderText(plan, { color: false })).toMatch(/(Plan: .*\.|No changes\. .*)\n$/);
        expect(renderMarkdown(plan)).toMatch(/^### tenantform plan\n/);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('converges: after applying a plan, planning again leaves only no-ops and blocked changes', () => {
    fc.assert(
      fc.property(inputs, ({ want, have }) => {
        const first = planChanges(want, stateDoc(have));
        const second = planChanges(want, stateDoc(appliedState(first, have)));
        const left = second.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked');
        expect(left).toEqual([]);
        expect(second.summary.blocked).toBe(first.summary.blocked);
      }),
      { seed: 99, numRuns: 300 },
    );
  });
});
