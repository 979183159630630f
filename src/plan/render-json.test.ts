import { describe, expect, it } from 'vitest';
import { checkSchema } from '../schemas/index.js';
import { desired, everyActionPlan, policy, recorded, riskyPlan, stateDoc } from '../../test/plan-builders.js';
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
      'review',
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

  it('flags risky changes with why, their effects and the codes of the findings, and keeps the findings', () => {
    const parsed = JSON.parse(renderJson(riskyPlan())) as {
      changes: { review: Record<string, unknown> }[];
      findings: { rule: string; address: string | null; source: unknown }[];
    };
    expect(checkSchema('plan', parsed)).toEqual([]);
    expect(parsed.changes.map((c) => c.review)).toEqual([
      {
        label: 'client_id:web',
        risky: false,
        risks: [],
        effects: [{ code: 'limit-change', from: 1500, to: 1200 }],
        findings: [],
      },
      {
        label: 'default',
        risky: true,
        risks: ['blocks-every-request', 'finding'],
        effects: [{ code: 'blocks-every-request' }, { code: 'counter', counter: 'per-application' }],
        findings: ['shared-limit-zero', 'limit-cut'],
      },
      {
        label: 'third_party_clients',
        risky: true,
        risks: ['starts-enforcing'],
        effects: [
          { code: 'starts-enforcing', from: 'log', action: 'block', limit: 20 },
          { code: 'counter', counter: 'shared' },
        ],
        findings: [],
      },
    ]);
    expect(parsed.findings.map((f) => [f.rule, f.address])).toEqual([
      ['shared-limit-zero', 'rate_limit_policy["oauth_authentication_api","client","default"]'],
      ['limit-cut', 'rate_limit_policy["oauth_authentication_api","client","default"]'],
      ['no-default-policy', null],
    ]);
  });
});
