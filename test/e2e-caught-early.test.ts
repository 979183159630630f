/**
 * The five cases of the guardrails issue are caught before any request, end
 * to end against the emulator, proved by what the emulator received (its
 * request stats, the token endpoint's included; the CLI holds a token, so a
 * run that sends nothing leaves them empty):
 *
 * - spec (the default): a reserved subject_token_type and the risky changes
 *   are caught with no request at all, and the guardrails and explain ask
 *   the tenant for nothing (apply sends its writes and nothing else);
 * - full: the same two with no request at all, even with --refresh (the
 *   config rules run before the tenant is read); the three references
 *   (test/e2e-references.test.ts, and a plan rule under --refresh here)
 *   with reads only, before any write.
 */
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';

const policy = (selector: string, configuration: string) => `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: ${configuration}
`;

/** A profile of the emulator's default Action (API profile full), with `type` as its token type. */
const profile = (type: string) => `token_exchange_profiles:
  - name: Partner portal SSO
    subject_token_type: ${type}
    action_id: 3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90
    type: custom_authentication
`;

const RESERVED =
  'config/profiles.yaml:2:5: subject_token_type "urn:auth0:legacy" is in the namespace urn:auth0';
const BLOCKS_ALL =
  'config/p.yaml:2:5: default has limit 0 with block: every sign-in of every application no other policy names is refused [shared-limit-zero]';

/** What the emulator received: "METHOD /route" → count, the token endpoint's included. */
type Routes = Record<string, number>;

describe.each([
  ['spec', []],
  ['full', ['--api', 'full']],
] as const)('under the %s profile', (profileName, apiFlags) => {
  const ws = useEmulatorWorkspace({}, { api: profileName });
  const routes = (): Routes => ws.emulator.stats().byRoute;
  const run = (...args: string[]) => ws.cli(...args, ...apiFlags, '--base-url', ws.emulator.baseUrl);
  /** Each command as it is, and under full with --refresh too (validate: --live). */
  const variants: [string, string[]][] = [
    ['without --refresh', []],
    ...(profileName === 'full' ? [['with --refresh', ['--refresh']] as [string, string[]]] : []),
  ];

  it.each(variants)(
    'a reserved subject_token_type stops validate, plan and apply %s with no request',
    async (_label, flags) => {
      ws.write('p.yaml', `rate_limit_policies:\n${policy('default', '{ action: log, limit: 100 }')}`);
      ws.write('profiles.yaml', profile('urn:auth0:legacy'));
      const validate = await run('validate', 'config', ...(flags.length > 0 ? ['--live'] : []));
      const plan = await run('plan', 'config', ...flags);
      const apply = await run('apply', 'config', '--auto-approve', ...flags);
      for (const r of [validate, plan, apply]) {
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(RESERVED);
        expect(r.stderr).toContain('[token-type-reserved]');
      }
      expect(apply.stderr).toContain('Nothing was sent.');
      expect(routes()).toEqual({});
    },
  );

  it.each(variants)(
    'a policy that blocks every application stops plan and apply --strict %s with no request',
    async (_label, flags) => {
      ws.write('p.yaml', `rate_limit_policies:\n${policy('default', '{ action: block, limit: 0 }')}`);
      const plan = await run('plan', 'config', '--strict', ...flags);
      const apply = await run('apply', 'config', '--auto-approve', '--strict', ...flags);
      for (const r of [plan, apply]) {
        expect(r.code).toBe(1);
        expect(r.stdout).not.toContain('Plan:');
        expect(r.stderr).toContain(BLOCKS_ALL);
      }
      expect(routes()).toEqual({});
    },
  );

  it('risky changes head the plan, in Markdown under "Review these", with no request', async () => {
    ws.write(
      'p.yaml',
      `rate_limit_policies:\n${policy('default', '{ action: block, limit: 0 }')}${policy('client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC', '{ action: log, limit: 100 }')}`,
    );
    const plan = await run('plan', 'config', '--format', 'markdown');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('#### Review these (1)');
    expect(plan.stdout).toContain(
      '| `+`&nbsp;create | rate&nbsp;limit&nbsp;policy | `default`: new, block 0/s |',
    );
    expect(plan.stdout).toContain('#### Other changes (1)');
    expect(routes()).toEqual({});
  });

  it('explain asks the tenant for nothing, in every format', async () => {
    ws.write(
      'p.yaml',
      `rate_limit_policies:\n${policy('default', '{ action: log, limit: 100 }')}${policy('third_party_clients', '{ action: block, limit: 20 }')}`,
    );
    for (const format of ['text', 'markdown', 'json']) {
      const r = await run(
        'explain',
        'config',
        '--client',
        'tpa_x',
        '--policy',
        'default',
        '--format',
        format,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('third_party_clients');
    }
    expect(routes()).toEqual({});
  });

  it('apply with warnings sends its writes and nothing else', async () => {
    ws.write(
      'p.yaml',
      `rate_limit_policies:\n${policy('default', '{ action: block, limit: 100 }')}${policy('third_party_clients', '{ action: block, limit: 0 }')}`,
    );
    const apply = await run('apply', 'config', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('[shared-limit-zero]');
    expect(routes()).toEqual({ 'POST /api/v2/rate-limit-policies': 2 });
  });
});

describe('under the full profile, with --refresh', () => {
  const ws = useEmulatorWorkspace({}, { api: 'full' });
  const run = (...args: string[]) => ws.cli(...args, '--api', 'full', '--base-url', ws.emulator.baseUrl);

  it('a plan rule (enforcing with no log stage) stops apply --strict after the reads, before any write', async () => {
    ws.write('p.yaml', `rate_limit_policies:\n${policy('default', '{ action: block, limit: 100 }')}`);
    const apply = await run('apply', 'config', '--auto-approve', '--strict', '--refresh');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('[enforce-without-log]');
    const sent = Object.keys(ws.emulator.stats().byRoute);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });
});
