import { describe, expect, it } from 'vitest';
import { desired, planChange, policy, profile } from '../../test/plan-builders.js';
import type { Attributes, DesiredResource } from '../resources/index.js';
import { checkChanges, type ChangeView } from './check-changes.js';
import { checkConfig, hasAcceptedScheme, hostAllowed, reservedNamespace } from './check-config.js';
import { findingMessage } from './rule-words.js';
import { RULES, severityOf, type GuardrailSettings, type RuleCode } from './rules.js';

const AT = { file: 'p.yaml', line: 3, col: 5 };
const rlp = (selector: string, configuration: Attributes): DesiredResource =>
  desired('rate_limit_policy', policy(selector, configuration), AT);
const tep = (type: string): DesiredResource => desired('token_exchange_profile', profile(type), AT);
const base = rlp('default', { action: 'log', limit: 100 });
const NONE: GuardrailSettings = { rules: {} };

const codes = (resources: DesiredResource[], settings: GuardrailSettings = NONE): RuleCode[] =>
  checkConfig(resources, settings).map((f) => f.rule);

describe('subject_token_type: scheme and reserved namespaces', () => {
  it.each([
    ['urn:acme:partner-token', true, null],
    ['https://acme.example/tokens/a', true, null],
    ['URN:acme:partner-token', true, null],
    ['HTTPS://acme.example/t', true, null],
    ['http://acme.example/t', false, null],
    ['ftp://acme.example/t', false, null],
    ['urnx:acme:token', false, null],
    ['urn:auth0:legacy', true, 'urn:auth0'],
    ['urn:AUTH0:legacy', true, 'urn:auth0'],
    ['urn:ietf:params:oauth:token-type:jwt', true, 'urn:ietf'],
    ['urn:okta:token', true, 'urn:okta'],
    ['urn:ietfx:token', true, null],
    ['urn:acme:auth0:token', true, null],
    ['https://auth0.com/tokens/x', true, 'https://auth0.com'],
    ['https://AUTH0.COM:8443/tokens/x', true, 'https://auth0.com'],
    ['http://okta.com/t', false, 'http://okta.com'],
    ['https://okta.com', true, 'https://okta.com'],
    ['https://login.okta.com/t', true, null],
    ['https://auth0.com.example/t', true, null],
    // issue 35, item 16: the host compared canonically
    ['https://auth0.com./x', true, 'https://auth0.com'],
    ['https://Auth0.Com../x', true, 'https://auth0.com'],
    ['https://auth0%2Ecom/x', true, 'https://auth0.com'],
    ['https://user@okta.com./x', true, 'https://okta.com'],
    ['https://\uFF41uth0.com/x', true, 'https://auth0.com'],
  ])('%s: accepted scheme %s, reserved namespace %s', (value, scheme, namespace) => {
    expect(hasAcceptedScheme(value)).toBe(scheme);
    expect(reservedNamespace(value)).toBe(namespace);
  });
});

describe('hostAllowed', () => {
  it.each([
    ['status.acme.example', ['status.acme.example'], true],
    ['STATUS.acme.example', ['status.ACME.example'], true],
    ['evil.example', ['status.acme.example'], false],
    ['a.acme.example', ['*.acme.example'], true],
    ['a.b.acme.example', ['*.acme.example'], true],
    ['acme.example', ['*.acme.example'], false],
    ['xacme.example', ['*.acme.example'], false],
    ['status.acme.example', [], false],
  ])('%s in %j: %s', (host, allowed, ok) => {
    expect(hostAllowed(host, allowed)).toBe(ok);
  });
});

/** [rule, resources that trigger it, resources that do not, settings] */
const CONFIG_TABLE: [RuleCode, DesiredResource[], DesiredResource[], GuardrailSettings][] = [
  ['token-type-scheme', [base, tep('http://partner.example/token')], [base, tep('urn:partner:token')], NONE],
  ['token-type-reserved', [base, tep('urn:auth0:legacy')], [base, tep('urn:partner:legacy')], NONE],
  [
    'shared-limit-zero',
    [rlp('default', { action: 'block', limit: 0 })],
    [
      rlp('default', { action: 'log', limit: 0 }),
      rlp('third_party_clients', { action: 'block', limit: 1 }),
      rlp('client_id:abc', { action: 'block', limit: 0 }),
    ],
    NONE,
  ],
  [
    'shared-limit-zero',
    [base, rlp('cimd_clients', { action: 'redirect', limit: 0, redirect_uri: 'https://s.example/x' })],
    [base, rlp('cimd_clients', { action: 'allow' })],
    NONE,
  ],
  [
    'no-default-policy',
    [rlp('client_id:abc', { action: 'log', limit: 5 })],
    [base, tep('urn:partner:x')],
    NONE,
  ],
  [
    'redirect-host',
    [base, rlp('client_id:a', { action: 'redirect', limit: 5, redirect_uri: 'https://evil.example/x' })],
    [
      base,
      rlp('client_id:a', { action: 'redirect', limit: 5, redirect_uri: 'https://status.acme.example/x' }),
    ],
    { rules: {}, redirectHosts: ['*.acme.example'] },
  ],
];

describe('rules of stage config: each has a case that triggers it and one that does not', () => {
  it.each(CONFIG_TABLE)('%s', (rule, triggers, passes, settings) => {
    expect(codes(triggers, settings)).toContain(rule);
    expect(codes(passes, settings)).not.toContain(rule);
  });

  it('covers every rule of stage config', () => {
    const covered = new Set(CONFIG_TABLE.map(([rule]) => rule));
    expect(RULES.filter((r) => r.stage === 'config').map((r) => r.code)).toEqual(
      [...covered].sort(
        (a, b) => RULES.findIndex((r) => r.code === a) - RULES.findIndex((r) => r.code === b),
      ),
    );
  });

  it('reports a finding at the resource, with its address and a sentence naming the value', () => {
    const [finding] = checkConfig([base, tep('urn:auth0:legacy')], NONE);
    expect(finding).toEqual({
      rule: 'token-type-reserved',
      severity: 'error',
      address: 'token_exchange_profile["urn:auth0:legacy"]',
      source: AT,
      params: { value: 'urn:auth0:legacy', namespace: 'urn:auth0' },
    });
    expect(findingMessage(finding!)).toBe(
      'subject_token_type "urn:auth0:legacy" is in the namespace urn:auth0, which the service reserves and refuses: use one you own, such as urn:<your-company>:<token-name>',
    );
  });

  it('checks redirect hosts only when the repository declares them', () => {
    const redirect = rlp('client_id:a', {
      action: 'redirect',
      limit: 5,
      redirect_uri: 'https://evil.example/x',
    });
    expect(codes([base, redirect])).toEqual([]);
    expect(codes([base, redirect], { rules: {}, redirectHosts: [] })).toEqual(['redirect-host']);
  });

  it('says nothing about a configuration without rate limit policies', () => {
    expect(codes([tep('urn:partner:x')])).toEqual([]);
  });
});

const change = (
  action: string,
  before: Attributes | null,
  after: Attributes | null,
  selector = 'client_id:abc',
): ChangeView =>
  planChange('rate_limit_policy', ['oauth_authentication_api', 'client', selector], action as 'create', {
    before: before && policy(selector, before),
    after: after && policy(selector, after),
    source: after ? AT : null,
  });

/** [rule, change that triggers it, changes that do not] */
const PLAN_TABLE: [RuleCode, ChangeView, ChangeView[]][] = [
  [
    'enforce-without-log',
    change('create', null, { action: 'block', limit: 20 }),
    [
      change('create', null, { action: 'log', limit: 20 }),
      change('update', { action: 'log', limit: 20 }, { action: 'block', limit: 20 }),
      change(
        'replace',
        { action: 'block', limit: 20 },
        { action: 'redirect', limit: 20, redirect_uri: 'https://a.example/' },
      ),
      change('no-op', { action: 'block', limit: 20 }, { action: 'block', limit: 20 }),
      change('create', null, { action: 'allow' }),
    ],
  ],
  [
    'enforce-without-log',
    change(
      'update',
      { action: 'allow' },
      { action: 'redirect', limit: 5, redirect_uri: 'https://a.example/' },
    ),
    [change('delete', { action: 'block', limit: 5 }, null)],
  ],
  [
    'limit-cut',
    change('update', { action: 'block', limit: 1500 }, { action: 'block', limit: 700 }),
    [
      change('update', { action: 'block', limit: 1500 }, { action: 'block', limit: 750 }),
      change('update', { action: 'block', limit: 100 }, { action: 'allow' }),
      change('create', null, { action: 'block', limit: 0 }),
      change('update', { action: 'log', limit: 10 }, { action: 'log', limit: 20 }),
    ],
  ],
];

describe('rules of stage plan: each has a change that triggers it and changes that do not', () => {
  it.each(PLAN_TABLE)('%s', (rule, triggers, passes) => {
    expect(checkChanges([triggers], NONE).map((f) => f.rule)).toContain(rule);
    for (const c of passes)
      expect(
        checkChanges([c], NONE).map((f) => f.rule),
        c.action,
      ).not.toContain(rule);
  });

  it('covers every rule of stage plan', () => {
    expect(new Set(PLAN_TABLE.map(([rule]) => rule))).toEqual(
      new Set(RULES.filter((r) => r.stage === 'plan').map((r) => r.code)),
    );
  });

  it('words a move to enforcing and a limit cut', () => {
    const found = checkChanges(
      [
        change('update', { action: 'allow' }, { action: 'block', limit: 20 }),
        change('update', { action: 'log', limit: 1500 }, { action: 'log', limit: 100 }, 'default'),
      ],
      NONE,
    );
    expect(found.map(findingMessage)).toEqual([
      'client_id:abc moves from allow to block at 20/s with no log stage recorded first: the docs advise running a new limit in log, and setting it at 2–3× the observed peak',
      'default: limit 1500 → 100/s, under half the recorded value',
    ]);
  });
});

describe('severity: defaults, the repository’s choice, --strict', () => {
  it('keeps the default when nothing is set', () => {
    expect(severityOf('token-type-reserved', NONE)).toBe('error');
    expect(severityOf('limit-cut', NONE)).toBe('warning');
  });

  it('takes the setting, off included, and --strict makes warnings errors but leaves off alone', () => {
    const settings: GuardrailSettings = { rules: { 'limit-cut': 'error', 'no-default-policy': 'off' } };
    expect(severityOf('limit-cut', settings)).toBe('error');
    expect(severityOf('no-default-policy', settings)).toBe('off');
    expect(codes([rlp('client_id:abc', { action: 'log', limit: 5 })], settings)).toEqual([]);
    const strict = { ...settings, strict: true };
    expect(severityOf('shared-limit-zero', strict)).toBe('error');
    expect(severityOf('no-default-policy', strict)).toBe('off');
  });

  it('gives each finding the severity its rule has under the settings', () => {
    const found = checkConfig([rlp('default', { action: 'block', limit: 0 })], { rules: {}, strict: true });
    expect(found.map((f) => [f.rule, f.severity])).toEqual([['shared-limit-zero', 'error']]);
  });
});

describe('schemas in step with the rules', () => {
  it('plan.schema.json lists every rule code, in order', async () => {
    const { readFileSync } = await import('node:fs');
    const schema = JSON.parse(
      readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'),
    ) as {
      $defs: { finding: { properties: { rule: { enum: string[] } } } };
    };
    expect(schema.$defs.finding.properties.rule.enum).toEqual(RULES.map((r) => r.code));
  });
});
