import { describe, expect, it } from 'vitest';
import {
  desired,
  everyActionPlan,
  policy,
  profile,
  recorded,
  riskyPlan,
  stateDoc,
} from '../../test/plan-builders.js';
import { planChanges } from './planner.js';
import { COMPACT_ABOVE } from './render-compact.js';
import { renderText, renderTextChunks } from './render-text.js';
import { flagOf } from '../cli/run-words.js';

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');

function sample() {
  const { desired: want, state } = everyActionPlan();
  return planChanges(want, state);
}

const EXPECTED = `Symbols: + create, - delete, -/+ replace (delete, then create), . forget (stop tracking; it stays on the tenant), ! blocked (cannot be applied)

  - rate limit policy cimd_clients: removed (was block 100/s)
      rate_limit_policy["oauth_authentication_api","client","cimd_clients"]
      effect: its applications fall back to default: block above 500/s
      - resource: "oauth_authentication_api"
      - consumer: "client"
      - consumer_selector: "cimd_clients"
      - configuration:
      -   action: "block"
      -   limit: 100
      # no longer in the configuration

  + rate limit policy client_id:abc: new, log 50/s
      rate_limit_policy["oauth_authentication_api","client","client_id:abc"]
      effect: leaves default (block 100/s)
      + resource: "oauth_authentication_api"
      + consumer: "client"
      + consumer_selector: "client_id:abc"
      + configuration:
      +   action: "log"
      +   limit: 50
      # not in state

-/+ rate limit policy default: limit 100 → 500
      rate_limit_policy["oauth_authentication_api","client","default"]
      effect: allows five times as many requests: 100 → 500 per second
      effect: each application without a policy of its own is counted apart
      @@ -3,4 +3,4 @@
        consumer_selector: "default"
        configuration:
          action: "block"
      -   limit: 100
      +   limit: 500
      # configuration.limit changed; rate limit policies have no update operation; a change deletes the policy and creates it again
      # note: the rate limit policy is absent between the delete and the create

  + user permission auth0|u1 read: new
      user_permission["auth0|u1","https://api","read"]
      effect: grants read on https://api to auth0|u1
      + user_id: "auth0|u1"
      + resource_server_identifier: "https://api"
      + permission_name: "read"
      # not in state

  . user permission auth0|u2 write: no longer tracked; stays on the tenant
      user_permission["auth0|u2","https://api","write"]
        user_id: "auth0|u2"
        resource_server_identifier: "https://api"
        permission_name: "write"
      # no longer in the configuration; the API has no operation to remove a permission from a user, so tenantform stops tracking it and it stays on the tenant

  ! token exchange profile urn:a: name "partner tokens" → "new name"
      token_exchange_profile["urn:a"]
      effect: nothing: no operation can make this change
      @@ -1,4 +1,4 @@
        subject_token_type: "urn:a"
        action_id: "act_123"
      - name: "partner tokens"
      + name: "new name"
        type: "custom_authentication"
      # name changed; the API has no operation to update or delete a token exchange profile, so no operation can make this change. Restore the recorded value in the configuration, or change it by other means

1 unchanged resource was adopted through 409 on create: settings not verified, no read operation exists.
Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked.
`;

describe('renderText', () => {
  it('shows every action with its symbol, attributes or diff, and reason', () => {
    expect(renderText(sample(), { color: false })).toBe(EXPECTED);
  });

  it('writes no ANSI escapes when colour is off', () => {
    expect(renderText(sample(), { color: false })).not.toContain(ESC);
  });

  it('colours symbols and diff lines when colour is on, with the same text underneath', () => {
    const text = renderText(sample(), { color: true });
    expect(text).toContain('\u001b[31m-   limit: 100\u001b[0m');
    expect(text).toContain('\u001b[32m+   limit: 500\u001b[0m');
    expect(text.replace(ANSI, '')).toBe(EXPECTED);
  });

  it('says there are no changes when everything matches', () => {
    const plan = planChanges(
      [desired('rate_limit_policy', policy('default'))],
      stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]),
    );
    expect(renderText(plan, { color: false })).toBe(
      'No changes. The recorded state matches the configuration.\n',
    );
    expect(renderText(planChanges([], null), { color: false })).toBe(
      'No changes. The recorded state matches the configuration.\n',
    );
  });

  it('lists unchanged resources on request, flagging adopted ones', () => {
    const plan = planChanges(
      [desired('rate_limit_policy', policy('default'))],
      stateDoc([recorded('rate_limit_policy', policy('default'), { adopted: true })]),
    );
    expect(renderText(plan, { color: false, showNoOp: true })).toBe(
      'Symbols: = unchanged\n\n' +
        '  = rate limit policy default: unchanged (adopted; settings not verified, no read operation exists)\n' +
        '      rate_limit_policy["oauth_authentication_api","client","default"]\n' +
        '      # matches state (adopted; settings not verified, no read operation exists)\n\n' +
        'No changes. The recorded state matches the configuration.\n',
    );
  });

  it('flags an adopted resource in its header', () => {
    const plan = planChanges(
      [],
      stateDoc([recorded('rate_limit_policy', policy('default'), { adopted: true })]),
    );
    const text = renderText(plan, { color: false });
    expect(text).toContain(
      '  ! rate limit policy default: cannot be removed (adopted; settings not verified, no read operation exists)\n' +
        '      rate_limit_policy["oauth_authentication_api","client","default"]\n',
    );
    expect(text).toContain('Plan: 0 to create, 0 to replace, 0 to delete, 0 to forget, 1 blocked.\n');
  });
});

describe('renderText above COMPACT_ABOVE changes', () => {
  const many = (n: number) =>
    planChanges(
      Array.from({ length: n }, (_, i) =>
        desired('rate_limit_policy', policy(`client_id:app${String(i).padStart(3, '0')}`)),
      ),
      null,
    );

  it('shows one line per change, saying where the detail is', () => {
    const text = renderText(many(COMPACT_ABOVE + 1), { color: false, names: flagOf });
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('  + rate limit policy '))).toHaveLength(COMPACT_ABOVE + 1);
    expect(text).not.toContain('limit: 100');
    expect(text).toContain(
      `${COMPACT_ABOVE + 1} changes, one line each (more than ${COMPACT_ABOVE}): --verbose shows`,
    );
    expect(lines.length).toBeLessThan(COMPACT_ABOVE + 15);
    expect(text).toContain(`Plan: ${COMPACT_ABOVE + 1} to create`);
  });

  it('is yielded a line at a time: a large plan is never one string of all its lines (issue 39)', () => {
    const plan = many(COMPACT_ABOVE + 1);
    const chunks = [...renderTextChunks(plan, { color: false })];
    const holding = chunks.map((c) => c.split('\n').filter((l) => l.startsWith('  + ')).length);
    expect(Math.max(...holding)).toBe(1);
    expect(chunks.join('')).toBe(renderText(plan, { color: false }));
  });

  it('keeps the attributes at COMPACT_ABOVE changes, and with verbose above it', () => {
    expect(renderText(many(COMPACT_ABOVE), { color: false })).toContain('limit: 100');
    const verbose = renderText(many(COMPACT_ABOVE + 1), { color: false, verbose: true });
    expect(verbose.split('\n').filter((l) => l.includes('limit: 100'))).toHaveLength(COMPACT_ABOVE + 1);
    expect(verbose).not.toContain('one line each');
  });

  it('keeps the detail of risky changes under "Review these"; the others are one line each', () => {
    const risky = riskyPlan();
    const extra = planChanges(
      Array.from({ length: COMPACT_ABOVE }, (_, i) =>
        desired('rate_limit_policy', policy(`client_id:app${i}`, { action: 'log', limit: 10 })),
      ),
      null,
    ).changes;
    const text = renderText({ ...risky, changes: [...risky.changes, ...extra] }, { color: false });
    expect(text).toContain('Review these (2):');
    expect(text).toContain('      effect: blocks every sign-in of every application no other policy names');
    expect(text).toContain(`${COMPACT_ABOVE + 3} changes, one line each`);
    expect(text).toMatch(/^ {2}~ rate limit policy client_id:web: limit 1500 → 1200$/m);
    expect(text).not.toContain('limit: 1200');
  });

  it('a blocked change keeps its reason on its line', () => {
    const state = stateDoc([recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_1' })]);
    const wanted = [
      ...many(COMPACT_ABOVE).changes.map((c) => desired(c.kind, c.after!)),
      desired('token_exchange_profile', profile('urn:a', { name: 'renamed' })),
    ];
    const text = renderText(planChanges(wanted, state), { color: false });
    expect(text).toMatch(
      /^ {2}! token exchange profile urn:a: .* {2}# name changed; .*no operation can make/m,
    );
  });
});

describe('renderText: what the changes do, risky ones first', () => {
  it('lists risky changes under "Review these", with their effects and warnings, then the others', () => {
    const text = renderText(riskyPlan(), { color: false });
    expect(text).toBe(
      [
        'API profile: full (changes are updated in place and removals deleted where the API allows)',
        '',
        'Symbols: ~ update in place',
        '',
        'Review these (2):',
        '',
        '  ~ rate limit policy default: limit 100 → 0',
        '      rate_limit_policy["oauth_authentication_api","client","default"]',
        '      effect: blocks every sign-in of every application no other policy names',
        '      effect: each application without a policy of its own is counted apart',
        '      warning: default has limit 0 with block: every sign-in of every application no other policy names is refused [shared-limit-zero]',
        '      warning: default: limit 100 → 0/s, under half the recorded value [limit-cut]',
        '      @@ -3,4 +3,4 @@',
        '        consumer_selector: "default"',
        '        configuration:',
        '          action: "block"',
        '      -   limit: 100',
        '      +   limit: 0',
        '      # configuration.limit changed; updated in place (same id)',
        '',
        '  ~ rate limit policy third_party_clients: log → block',
        '      rate_limit_policy["oauth_authentication_api","client","third_party_clients"]',
        '      effect: from log to enforcing (block at 20/s)',
        '      effect: shared by all third-party applications: one counter',
        '      @@ -2,5 +2,5 @@',
        '        consumer: "client"',
        '        consumer_selector: "third_party_clients"',
        '        configuration:',
        '      -   action: "log"',
        '      +   action: "block"',
        '          limit: 20',
        '      # configuration.action changed; updated in place (same id)',
        '',
        'Other changes (1):',
        '',
        '  ~ rate limit policy client_id:web: limit 1500 → 1200',
        '      rate_limit_policy["oauth_authentication_api","client","client_id:web"]',
        '      effect: allows 20% fewer requests: 1500 → 1200 per second',
        '      @@ -3,4 +3,4 @@',
        '        consumer_selector: "client_id:web"',
        '        configuration:',
        '          action: "block"',
        '      -   limit: 1500',
        '      +   limit: 1200',
        '      # configuration.limit changed; updated in place (same id)',
        '',
        'Warnings (1):',
        "  no rate limit policy for default: an application no policy names (and not in a group that has one) has no limit but the tenant's own; add consumer_selector: default, in log first [no-default-policy]",
        '',
        'Plan: 0 to create, 3 to update, 0 to replace, 0 to delete, 0 to forget, 0 blocked.',
        '',
      ].join('\n'),
    );
  });
});
