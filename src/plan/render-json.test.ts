import { describe, expect, it } from 'vitest';
import { checkSchema } from '../schemas/index.js';
import { desired, everyActionPlan, policy, recorded, stateDoc } from '../../test/plan-builders.js';
import { planChanges } from './planner.js';
import { renderJson } from './render-json.js';

describe('renderJson', () => {
  it('prints a plan that matches plan.schema.json', () => {
    const { desired: want, state } = everyActionPlan();
    const parsed: unknown = JSON.parse(renderJson(planChanges(want, state)));
    expect(checkSchema('plan', parsed)).toEqual([]);
  });

  it('keeps a fixed key order at every level, whatever order the inputs used', () => {
    const a = planChanges(
      [
        desired('rate_limit_policy', {
          configuration: { limit: 1, action: 'log' },
          consumer_selector: 'default',
          consumer: 'client',
          resource: 'oauth_authentication_api',
        }),
      ],
      null,
    );
    const b = planChanges(
      [desired('rate_limit_policy', policy('default', { action: 'log', limit: 1 }))],
      null,
    );
    expect(renderJson(a)).toBe(renderJson(b));
    const change = (JSON.parse(renderJson(a)) as { changes: Record<string, unknown>[] }).changes[0]!;
    expect(Object.keys(change)).toEqual([
      'address',
      'kind',
      'identity',
      'action',
      'id',
      'adopted',
      'reason',
      'source',
      'before',
      'after',
    ]);
    expect(Object.keys(change.after as object)).toEqual([
      'resource',
      'consumer',
      'consumer_selector',
      'configuration',
    ]);
  });

  it('starts with the format version, the state and the summary', () => {
    const plan = planChanges(
      [],
      stateDoc([recorded('rate_limit_policy', policy('x'), { id: 'rlp_1' })], { lineage: 'L', serial: 2 }),
    );
    const json = JSON.parse(renderJson(plan)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['format_version', 'api', 'state', 'summary', 'changes']);
    expect(json.api).toBe('spec');
    expect(json.state).toEqual({ lineage: 'L', serial: 2 });
  });
});
