import { describe, expect, it } from 'vitest';
import { desired, everyActionPlan, policy, profile, recorded, stateDoc } from '../../test/plan-builders.js';
import { planChanges } from './planner.js';
import { COMPACT_ABOVE } from './render-compact.js';
import { renderText } from './render-text.js';

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');

function sample() {
  const { desired: want, state } = everyActionPlan();
  return planChanges(want, state);
}

const EXPECTED = `Symbols: + create, - delete, -/+ replace (delete, then create), . forget (stop tracking; it stays on the tenant), ! blocked (cannot be applied)

  - rate limit policy rate_limit_policy["oauth_authentication_api","client","cimd_clients"]
      - resource: "oauth_authentication_api"
      - consumer: "client"
      - consumer_selector: "cimd_clients"
      - configuration:
      -   action: "block"
      -   limit: 100
      # no longer in the configuration

  + rate limit policy rate_limit_policy["oauth_authentication_api","client","client_id:abc"]
      + resource: "oauth_authentication_api"
      + consumer: "client"
      + consumer_selector: "client_id:abc"
      + configuration:
      +   action: "log"
      +   limit: 50
      # not in state

-/+ rate limit policy rate_limit_policy["oauth_authentication_api","client","default"]
      @@ -3,4 +3,4 @@
        consumer_selector: "default"
        configuration:
          action: "block"
      -   limit: 100
      +   limit: 500
      # configuration.limit changed; rate limit policies have no update operation; a change deletes the policy and creates it again
      # note: the rate limit policy is absent between the delete and the create

  + user permission user_permission["auth0|u1","https://api","read"]
      + user_id: "auth0|u1"
      + resource_server_identifier: "https://api"
      + permission_name: "read"
      # not in state

  . user permission user_permission["auth0|u2","https://api","write"]
        user_id: "auth0|u2"
        resource_server_identifier: "https://api"
        permission_name: "write"
      # no longer in the configuration; the API has no operation to remove a permission from a user, so tenantform stops tracking it and it stays on the tenant

  ! token exchange profile token_exchange_profile["urn:a"]
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
        '  = rate limit policy rate_limit_policy["oauth_authentication_api","client","default"] ' +
        '(adopted; settings not verified, no read operation exists)\n' +
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
      '  ! rate limit policy rate_limit_policy["oauth_authentication_api","client","default"] (adopted; settings not verified, no read operation exists)\n',
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
    const text = renderText(many(COMPACT_ABOVE + 1), { color: false });
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('  + rate limit policy '))).toHaveLength(COMPACT_ABOVE + 1);
    expect(text).not.toContain('limit: 100');
    expect(text).toContain(
      `${COMPACT_ABOVE + 1} changes, one line each (more than ${COMPACT_ABOVE}): --verbose shows`,
    );
    expect(lines.length).toBeLessThan(COMPACT_ABOVE + 10);
    expect(text).toContain(`Plan: ${COMPACT_ABOVE + 1} to create`);
  });

  it('keeps the attributes at COMPACT_ABOVE changes, and with verbose above it', () => {
    expect(renderText(many(COMPACT_ABOVE), { color: false })).toContain('limit: 100');
    const verbose = renderText(many(COMPACT_ABOVE + 1), { color: false, verbose: true });
    expect(verbose.split('\n').filter((l) => l.includes('limit: 100'))).toHaveLength(COMPACT_ABOVE + 1);
    expect(verbose).not.toContain('one line each');
  });

  it('a blocked change keeps its reason on its line', () => {
    const state = stateDoc([recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_1' })]);
    const wanted = [
      ...many(COMPACT_ABOVE).changes.map((c) => desired(c.kind, c.after!)),
      desired('token_exchange_profile', profile('urn:a', { name: 'renamed' })),
    ];
    const text = renderText(planChanges(wanted, state), { color: false });
    expect(text).toMatch(
      /^ {2}! token exchange profile token_exchange_profile\["urn:a"\] {2}# name changed; .*no operation can make/m,
    );
  });
});
