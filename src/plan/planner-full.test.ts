/**
 * The planner under API profile full: updates in place where the API allows,
 * replaces where an attribute is fixed at creation, deletes what leaves the
 * config, and blocks what needs an id the state does not have. The same
 * inputs under spec plan as before profiles existed.
 */
import { describe, expect, it } from 'vitest';
import {
  desired,
  everyActionPlan,
  permission,
  policy,
  profile,
  recorded,
  stateDoc,
} from '../../test/plan-builders.js';
import { PlanError } from './errors.js';
import { planChanges } from './planner.js';
import { reasonText } from './reasons.js';
import { planProblems } from './plan-check.js';
import { verifySavedPlan } from './plan-verify.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import type { Change } from './types.js';

function only(changes: Change[]): Change {
  const shown = changes.filter((c) => c.action !== 'no-op');
  expect(shown).toHaveLength(1);
  return shown[0]!;
}

describe('planChanges under API profile full', () => {
  it('updates a policy whose configuration changed: same id, one change, no window', () => {
    const plan = planChanges(
      [desired('rate_limit_policy', policy('default', { action: 'block', limit: 500 }))],
      stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]),
      { api: 'full' },
    );
    expect(plan.api).toBe('full');
    expect(only(plan.changes)).toMatchObject({
      action: 'update',
      id: 'rlp_1',
      before: policy('default'),
      after: policy('default', { action: 'block', limit: 500 }),
      reason: { code: 'update', paths: ['configuration.limit'] },
    });
    expect(reasonText(only(plan.changes))).toBe('configuration.limit changed; updated in place (same id)');
    expect(plan.summary).toMatchObject({ update: 1, replace: 0 });
  });

  it('updates a renamed profile and replaces one whose action_id or type changed', () => {
    const state = stateDoc([
      recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_a' }),
      recorded('token_exchange_profile', profile('urn:b'), { id: 'tep_b' }),
      recorded('token_exchange_profile', profile('urn:c'), { id: 'tep_c' }),
    ]);
    const plan = planChanges(
      [
        desired('token_exchange_profile', profile('urn:a', { name: 'renamed' })),
        desired('token_exchange_profile', profile('urn:b', { action_id: 'act_999' })),
        desired('token_exchange_profile', profile('urn:c', { name: 'both', action_id: 'act_777' })),
      ],
      state,
      { api: 'full' },
    );
    expect(plan.changes.map((c) => c.reason)).toEqual([
      { code: 'update', paths: ['name'] },
      { code: 'replace-because-fixed', paths: ['action_id'], fixed: ['action_id'] },
      { code: 'replace-because-fixed', paths: ['action_id', 'name'], fixed: ['action_id'] },
    ]);
    expect(plan.changes.map((c) => [c.identity[0], c.action, reasonText(c)])).toEqual([
      ['urn:a', 'update', 'name changed; updated in place (same id)'],
      [
        'urn:b',
        'replace',
        "action_id changed, and the token exchange profile's action_id cannot be updated after creation; it is deleted and created again",
      ],
      [
        'urn:c',
        'replace',
        "action_id changed, and the token exchange profile's action_id cannot be updated after creation; it is deleted and created again",
      ],
    ]);
  });

  it('deletes removed profiles and permissions instead of forgetting them', () => {
    const plan = planChanges(
      [],
      stateDoc([
        recorded('user_permission', permission('auth0|u1', 'https://api', 'read')),
        recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_a' }),
      ]),
      { api: 'full' },
    );
    expect(plan.changes.map((c) => [c.kind, c.action])).toEqual([
      ['user_permission', 'delete'],
      ['token_exchange_profile', 'delete'],
    ]);
    expect(plan.summary).toMatchObject({ delete: 2, forget: 0 });
  });

  it('blocks an update or a delete of an adopted record without an id, naming the import that fixes it', () => {
    const plan = planChanges(
      [desired('rate_limit_policy', policy('default', { action: 'log', limit: 1 }))],
      stateDoc([
        recorded('rate_limit_policy', policy('default'), { adopted: true }),
        recorded('token_exchange_profile', profile('urn:a'), { adopted: true }),
      ]),
      { api: 'full' },
    );
    expect(plan.changes.map((c) => c.reason)).toEqual([
      { code: 'update-without-id', paths: ['configuration.action', 'configuration.limit'] },
      { code: 'delete-without-id' },
    ]);
    expect(plan.changes.map((c) => [c.action, reasonText(c)])).toEqual([
      [
        'blocked',
        'configuration.action and configuration.limit changed, but it was adopted without an id, and an update needs one; ' +
          `run tenantform import 'rate_limit_policy["oauth_authentication_api","client","default"]' <id> to attach its id, then it can be updated`,
      ],
      [
        'blocked',
        'no longer in the configuration, but it was adopted without an id, so it cannot be deleted; ' +
          `run tenantform import 'token_exchange_profile["urn:a"]' <id> to attach its id, remove it by hand, ` +
          `or run tenantform state rm 'token_exchange_profile["urn:a"]' to stop tracking it`,
      ],
    ]);
  });

  it('destroys profiles and permissions too', () => {
    const { state } = everyActionPlan();
    const plan = planChanges([], state, { destroy: true, api: 'full' });
    expect(plan.changes.filter((c) => c.action === 'forget')).toEqual([]);
    expect(plan.changes.find((c) => c.kind === 'token_exchange_profile')!.action).toBe('delete');
    expect(plan.changes.find((c) => c.kind === 'user_permission')!.action).toBe('delete');
  });

  it('allows --replace of a profile, which spec refuses', () => {
    const state = stateDoc([recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_a' })]);
    const want = [desired('token_exchange_profile', profile('urn:a'))];
    const address = want[0]!.address;
    expect(only(planChanges(want, state, { replace: [address], api: 'full' }).changes).action).toBe(
      'replace',
    );
    expect(() => planChanges(want, state, { replace: [address] })).toThrow(PlanError);
  });

  it('leaves the same inputs under spec as they were: replace, blocked and forget', () => {
    const { desired: want, state } = everyActionPlan();
    const spec = planChanges(want, state);
    const full = planChanges(want, state, { api: 'full' });
    const actions = (changes: Change[]) => changes.map((c) => `${c.identity.at(-1)}:${c.action}`);
    expect(actions(spec.changes)).toEqual([
      'cimd_clients:delete',
      'client_id:abc:create',
      'default:replace',
      'third_party_clients:no-op',
      'read:create',
      'write:forget',
      'urn:a:blocked',
    ]);
    expect(actions(full.changes)).toEqual([
      'cimd_clients:delete',
      'client_id:abc:create',
      'default:update',
      'third_party_clients:no-op',
      'read:create',
      'write:delete',
      'urn:a:update',
    ]);
  });

  it('makes plans that pass the saved-plan checks under full and fail them under spec', () => {
    const state = stateDoc([
      recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' }),
      recorded('user_permission', permission('auth0|u2', 'https://api', 'write')),
      recorded('token_exchange_profile', profile('urn:partner:a'), { id: 'tep_1' }),
    ]);
    const want = [
      desired('rate_limit_policy', policy('default', { action: 'block', limit: 500 })),
      desired('token_exchange_profile', profile('urn:partner:a', { name: 'new name' })),
    ];
    const full = planChanges(want, state, { api: 'full' });
    expect(full.changes.map((c) => c.action)).toEqual(['update', 'delete', 'update']);
    expect(planProblems(full)).toEqual([]);
    expect(verifySavedPlan(full, state, 'p.json').changes).toEqual(full.changes);
    const problems = planProblems({ ...full, api: 'spec' });
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/cannot be updated under API profile spec/)]),
    );
    expect(() => verifySavedPlan({ ...full, api: 'spec' }, state, 'p.json')).toThrow(
      /does not match the state/,
    );
  });
});

describe('rendering a plan under API profile full', () => {
  const { desired: want, state } = everyActionPlan();
  const plan = planChanges(want, state, { api: 'full' });

  it('text names the profile, shows ~ updates with before and after, and counts them', () => {
    const text = renderText(plan, { color: false });
    expect(text.split('\n').slice(0, 3)).toEqual([
      'API profile: full (changes are updated in place and removals deleted where the API allows)',
      '',
      'Symbols: + create, ~ update in place, - delete',
    ]);
    expect(text).toContain(
      [
        '  ~ rate limit policy default: limit 100 → 500',
        '      rate_limit_policy["oauth_authentication_api","client","default"]',
        '      effect: allows five times as many requests: 100 → 500 per second',
        '      effect: each application without a policy of its own is counted apart',
        '      @@ -3,4 +3,4 @@',
        '        consumer_selector: "default"',
        '        configuration:',
        '          action: "block"',
        '      -   limit: 100',
        '      +   limit: 500',
        '      # configuration.limit changed; updated in place (same id)',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('absent between');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan: 2 to create, 2 to update, 0 to replace, 2 to delete, 0 to forget, 0 blocked.',
    );
  });

  it('text under spec has no profile line and no "to update"', () => {
    const text = renderText(planChanges(want, state), { color: false });
    expect(text.startsWith('Symbols: ')).toBe(true);
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked.',
    );
  });

  it('markdown names the profile and shows each update as a diff', () => {
    const md = renderMarkdown(plan);
    expect(md.split('\n').slice(0, 5)).toEqual([
      '### tenantform plan',
      '',
      'API profile: full (changes are updated in place and removals deleted where the API allows)',
      '',
      '**Plan: 2 to create, 2 to update, 0 to replace, 2 to delete, 0 to forget, 0 blocked.**',
    ]);
    expect(md).toContain('| `~`&nbsp;update | token&nbsp;exchange&nbsp;profile |');
    expect(md).toContain(
      [
        '```diff',
        '@@ -1,4 +1,4 @@',
        '  subject_token_type: "urn:a"',
        '  action_id: "act_123"',
        '- name: "partner tokens"',
        '+ name: "new name"',
      ].join('\n'),
    );
  });

  it('JSON records the profile, the update count and the before and after values', () => {
    const json = JSON.parse(renderJson(plan)) as {
      api: string;
      summary: Record<string, number>;
      changes: { action: string; before: unknown; after: unknown; id: string | null }[];
    };
    expect(json.api).toBe('full');
    expect(json.summary.update).toBe(2);
    const update = json.changes.find((c) => c.action === 'update')!;
    expect(update).toMatchObject({
      id: 'rlp_1',
      before: { configuration: { action: 'block', limit: 100 } },
      after: { configuration: { action: 'block', limit: 500 } },
    });
  });
});
