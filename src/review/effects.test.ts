import { describe, expect, it } from 'vitest';
import { planChange, policy, profile } from '../../test/plan-builders.js';
import type { Attributes } from '../resources/index.js';
import type { Action } from '../plan/types.js';
import { changeLabel, changeWords, effectWords } from './change-words.js';
import { reviewChanges, type PlanView } from './effects.js';
import type { Finding } from './rules.js';

const block = (limit: number): Attributes => ({ action: 'block', limit });
const log = (limit: number): Attributes => ({ action: 'log', limit });

function rlp(selector: string, action: Action, before: Attributes | null, after: Attributes | null) {
  return planChange('rate_limit_policy', ['oauth_authentication_api', 'client', selector], action, {
    before: before && policy(selector, before),
    after: after && policy(selector, after),
  });
}

/** The effects of the first change of `changes`, as sentences, and its risks. */
function first(changes: PlanView['changes'], extra: Partial<PlanView> = {}) {
  const [review] = reviewChanges({ changes, ...extra });
  return { says: review!.effects.map(effectWords), risks: review!.risks };
}

const DEFAULT = rlp('default', 'no-op', block(100), block(100));
const GROUP = rlp('third_party_clients', 'no-op', log(50), log(50));

describe('what a policy change does', () => {
  it('a client policy created enforcing: starts enforcing, and takes its client away from its group', () => {
    expect(first([rlp('client_id:tpa_1', 'create', null, block(20)), DEFAULT, GROUP])).toEqual({
      says: [
        'enforcing from the start (block at 20/s), with no log stage first',
        'leaves third_party_clients (log 50/s)',
      ],
      risks: ['starts-enforcing'],
    });
  });

  it('a group policy moved from log to block: from log to enforcing, one shared counter', () => {
    expect(first([rlp('third_party_clients', 'update', log(20), block(20)), DEFAULT])).toEqual({
      says: ['from log to enforcing (block at 20/s)', 'shared by all third-party applications: one counter'],
      risks: ['starts-enforcing'],
    });
  });

  it('default set to limit 0: blocks every sign-in of every application without a policy', () => {
    expect(first([rlp('default', 'replace', block(100), block(0))])).toEqual({
      says: [
        'blocks every sign-in of every application no other policy names',
        'each application without a policy of its own is counted apart',
      ],
      risks: ['blocks-every-request'],
    });
  });

  it('block to log stops turning requests away, and is not risky', () => {
    expect(first([rlp('client_id:web', 'update', block(1500), log(1500))])).toEqual({
      says: ['stops turning requests away: logs only'],
      risks: [],
    });
  });

  it('a small limit change says what it allows in words and is not risky', () => {
    expect(first([rlp('client_id:web', 'update', block(1500), block(1200))])).toEqual({
      says: ['allows 20% fewer requests: 1500 → 1200 per second'],
      risks: [],
    });
  });

  it.each([
    [1500, 3000, 'allows twice as many requests: 1500 → 3000 per second'],
    [100, 500, 'allows five times as many requests: 100 → 500 per second'],
    [100, 1200, 'allows 12 times as many requests: 100 → 1200 per second'],
    [1000, 1250, 'allows 25% more requests: 1000 → 1250 per second'],
    [0, 10, 'allows requests again: 0 → 10 per second'],
  ])('a limit change %i → %i says "%s"', (from, to, words) => {
    expect(first([rlp('client_id:web', 'update', log(from), log(to))]).says).toEqual([words]);
  });

  it('a change of action says no limit change beside it', () => {
    expect(first([rlp('client_id:web', 'update', log(100), block(200))]).says).toEqual([
      'from log to enforcing (block at 200/s)',
    ]);
  });

  it('a client policy removed: its client falls back to the next level, which may start enforcing', () => {
    expect(first([rlp('client_id:web', 'delete', log(1500), null), DEFAULT, GROUP])).toEqual({
      says: ['falls back to default: block above 100/s', 'from log to enforcing (block at 100/s)'],
      risks: ['starts-enforcing'],
    });
  });

  it('a removal that falls to a policy blocking everything blocks every request', () => {
    const zero = rlp('default', 'no-op', block(0), block(0));
    expect(first([rlp('third_party_clients', 'delete', log(5), null), zero]).risks).toEqual([
      'blocks-every-request',
    ]);
  });

  it('default removed: its applications are no longer limited', () => {
    expect(first([rlp('default', 'delete', block(100), null), GROUP]).says).toEqual([
      "its applications are no longer limited but by the tenant's own rate limit",
    ]);
  });

  it('a partial plan (--target) does not work out the precedence: the other policies are not in it', () => {
    expect(first([rlp('client_id:web', 'delete', log(1500), null)], { targets: ['x'] }).says).toEqual([]);
  });

  it('takes the findings of its own address and is then risky; findings on unchanged resources stay apart', () => {
    const finding: Finding = {
      rule: 'limit-cut',
      severity: 'warning',
      address: DEFAULT.address,
      source: null,
      params: {},
    };
    const reviews = reviewChanges({
      changes: [DEFAULT, rlp('client_id:web', 'update', log(10), log(12))],
      findings: [finding],
    });
    expect(reviews.map((r) => [r.findings.length, r.risks])).toEqual([
      [0, []],
      [0, []],
    ]);
    const changed = rlp('default', 'update', log(1000), log(100));
    expect(reviewChanges({ changes: [changed], findings: [finding] })[0]!.risks).toEqual([
      'limit-cut',
      'finding',
    ]);
  });

  it('has no effects for other kinds', () => {
    const p = planChange('token_exchange_profile', ['urn:a:b'], 'create', { after: profile('urn:a:b') });
    expect(reviewChanges({ changes: [p] })[0]).toEqual({ effects: [], risks: [], findings: [] });
  });
});

describe('a change in words', () => {
  it.each([
    [rlp('default', 'create', null, block(100)), 'default', 'new, block 100/s'],
    [rlp('default', 'delete', log(50), null), 'default', 'removed (was log 50/s)'],
    [rlp('default', 'update', block(100), log(100)), 'default', 'block → log'],
    [rlp('client_id:Wq2e', 'update', block(1500), block(1200)), 'client_id:Wq2e', 'limit 1500 → 1200'],
    [rlp('default', 'replace', block(100), log(50)), 'default', 'block 100/s → log 50/s'],
    [rlp('default', 'replace', { action: 'allow' }, block(5)), 'default', 'allow → block 5/s'],
    [rlp('default', 'replace', block(5), block(5)), 'default', 'replaced, no change'],
    [
      rlp(
        'client_id:a',
        'update',
        { action: 'redirect', limit: 5, redirect_uri: 'https://a.example/x' },
        { action: 'redirect', limit: 5, redirect_uri: 'https://b.example/x' },
      ),
      'client_id:a',
      'redirect_uri https://a.example/x → https://b.example/x',
    ],
    [
      planChange('token_exchange_profile', ['urn:a:b'], 'blocked', {
        before: profile('urn:a:b'),
        after: profile('urn:a:b', { name: 'new name' }),
      }),
      'urn:a:b',
      'name "partner tokens" → "new name"',
    ],
    [
      planChange('user_permission', ['auth0|u1', 'https://api', 'read'], 'forget', {
        before: { user_id: 'auth0|u1', resource_server_identifier: 'https://api', permission_name: 'read' },
      }),
      'auth0|u1 read',
      'no longer tracked; stays on the tenant',
    ],
  ])('%#: %s', (change, label, words) => {
    expect(changeLabel(change)).toBe(label);
    expect(changeWords(change)).toBe(words);
  });
});
