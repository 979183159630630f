import { describe, expect, it } from 'vitest';
import { configKeys, countsWith } from '../../test/helpers/kind-examples.js';
import { check, lines, marked } from '../../test/validate-helpers.js';
import { parseConfigText } from './parse-text.js';

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:abc123
    configuration: { action: redirect, limit: 500, redirect_uri: https://example.com/slow-down }
`;

const FULL = `${POLICY}user_permissions:
  - user_id: "auth0|5f7c8ec7c33c6c004bbafe82"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
      - { resource_server_identifier: "https://api.example.com/", permission_name: "write:reports" }
token_exchange_profiles:
  - type: custom_authentication
    name: Partner SSO
    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
    subject_token_type: urn:partner:legacy-token
`;

/** Asserts that the template (with its "@@" removed) gives an issue with this message at the marker. */
function expectIssueAt(template: string, message: string, ctx = {}): void {
  const { text, line, col } = marked(template);
  expect(lines(check(text, ctx))).toContain(`${line}:${col}: ${message}`);
}

describe('parseConfigText: resources', () => {
  it('turns each list item into a desired resource with its create body, address and source', () => {
    const result = check(FULL);
    expect(result.issues).toEqual([]);
    expect(result.desired).toEqual([
      {
        kind: 'rate_limit_policy',
        address: 'rate_limit_policy["oauth_authentication_api","client","client_id:abc123"]',
        identity: ['oauth_authentication_api', 'client', 'client_id:abc123'],
        attributes: {
          resource: 'oauth_authentication_api',
          consumer: 'client',
          consumer_selector: 'client_id:abc123',
          configuration: { action: 'redirect', limit: 500, redirect_uri: 'https://example.com/slow-down' },
        },
        source: { file: 'config.yaml', line: 2, col: 5 },
      },
      {
        kind: 'user_permission',
        address:
          'user_permission["auth0|5f7c8ec7c33c6c004bbafe82","https://api.example.com/","read:reports"]',
        identity: ['auth0|5f7c8ec7c33c6c004bbafe82', 'https://api.example.com/', 'read:reports'],
        attributes: {
          user_id: 'auth0|5f7c8ec7c33c6c004bbafe82',
          resource_server_identifier: 'https://api.example.com/',
          permission_name: 'read:reports',
        },
        source: { file: 'config.yaml', line: 9, col: 9 },
      },
      expect.objectContaining({ kind: 'user_permission', source: { file: 'config.yaml', line: 10, col: 9 } }),
      {
        kind: 'token_exchange_profile',
        address: 'token_exchange_profile["urn:partner:legacy-token"]',
        identity: ['urn:partner:legacy-token'],
        attributes: {
          name: 'Partner SSO',
          subject_token_type: 'urn:partner:legacy-token',
          action_id: '6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c',
          type: 'custom_authentication',
        },
        source: { file: 'config.yaml', line: 12, col: 5 },
      },
    ]);
    expect(result.counts).toEqual(
      countsWith({
        files: 1,
        rate_limit_policies: 1,
        user_permissions: 2,
        users: 1,
        token_exchange_profiles: 1,
      }),
    );
  });

  it('writes attributes in the schema order whatever the order in the file', () => {
    const profile = check(FULL).desired.find((r) => r.kind === 'token_exchange_profile')!;
    expect(Object.keys(profile.attributes)).toEqual(['name', 'subject_token_type', 'action_id', 'type']);
  });

  it.each([
    ['an empty file', ''],
    ['a file with only comments', '# nothing yet\n'],
    ['empty lists', 'rate_limit_policies:\nuser_permissions: []\ntoken_exchange_profiles:\n'],
  ])('accepts %s as zero resources', (_title, text) => {
    const result = check(text);
    expect(result.issues).toEqual([]);
    expect(result.desired).toEqual([]);
  });

  it('reads every YAML document of a file and checks identities across them', () => {
    const text = `${POLICY}---\n${POLICY.replace('client_id:abc123', 'default')}---\n${POLICY}`;
    const result = check(text);
    expect(lines(result)).toEqual([
      '14:5: duplicate rate limit policy oauth_authentication_api/client/client_id:abc123: also declared at config.yaml:2:5',
    ]);
    expect(result.counts.rate_limit_policies).toBe(3);
  });

  it('expands aliases and gives each item the position of its own list entry', () => {
    const text = `x_shared: &slow { action: block, limit: 10 }
rate_limit_policies: []
`;
    expect(lines(check(text))).toEqual([`1:1: unknown top-level key "x_shared"; allowed: ${configKeys()}`]);
    const ok = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: &slow { action: block, limit: 10 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: cimd_clients
    configuration: *slow
`;
    const result = check(ok);
    expect(result.issues).toEqual([]);
    expect(result.desired.map((r) => [r.attributes.configuration, r.source?.line])).toEqual([
      [{ action: 'block', limit: 10 }, 2],
      [{ action: 'block', limit: 10 }, 6],
    ]);
  });
});

describe('parseConfigText: bad input', () => {
  it('reports a YAML syntax error at the parser position and skips further checks of that document', () => {
    const result = check('rate_limit_policies:\n  - resource: [oauth\n');
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({ line: 3, col: 1, code: 'YAML_SYNTAX' });
    expect(result.issues[0]!.message).toMatch(/^YAML syntax error: /);
  });

  it('reports a duplicate mapping key at the second key, naming the first', () => {
    expectIssueAt(
      'rate_limit_policies: []\ntoken_exchange_profiles: []\n@@rate_limit_policies: []\n',
      'duplicate key "rate_limit_policies": already given at 1:1',
    );
  });

  it('names the allowed keys for an unknown top-level key', () => {
    expectIssueAt(
      '@@token_exchange_profile: []\n',
      `unknown top-level key "token_exchange_profile"; allowed: ${configKeys()}`,
    );
  });

  it.each([
    ['a list', '@@- rate_limit_policies: []\n'],
    ['a string', '@@rate_limit_policies\n'],
    ['a number', '@@42\n'],
  ])('refuses a top level that is %s', (_title, template) => {
    expectIssueAt(template, `the file must be a mapping with any of the keys ${configKeys()}`);
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'refuses the key %s as unknown and leaves prototypes alone',
    (key) => {
      const template = `${POLICY}    @@${key}: { polluted: true }\n`;
      expectIssueAt(
        template,
        `unknown property "${key}" in a rate limit policy; allowed: resource, consumer, consumer_selector, configuration`,
      );
      const result = check(marked(template).text);
      expect(result.desired).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    },
  );

  it('does not pollute through a top-level __proto__ key', () => {
    const parsed = parseConfigText('__proto__:\n  rate_limit_policies: 1\n', 'x.yaml');
    expect(parsed.issues.map((i) => i.code)).toEqual(['SCHEMA_ADDITIONAL_PROPERTIES']);
    expect(({} as Record<string, unknown>).rate_limit_policies).toBeUndefined();
  });

  it('refuses a document with more aliases than the limit, at the first alias past it', () => {
    const template = 'a: &a 1\nrate_limit_policies: [*a, *a, *a, @@*a]\n';
    expectIssueAt(
      template,
      'too many aliases: this document has 4, at most 3 are allowed; write the values out instead',
      {
        limits: { maxAliases: 3 },
      },
    );
  });

  it('stops alias expansion past the limit (billion laughs)', () => {
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 8; i++)
      levels.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const parsed = parseConfigText(levels.join('\n') + '\n', 'bomb.yaml', { limits: { maxAliases: 100 } });
    const limit = parsed.issues.filter((i) => i.code === 'YAML_ALIAS_LIMIT');
    expect(limit).toHaveLength(1);
    expect(limit[0]!.message).toBe('aliases expand to more than 10000 values; write the values out instead');
  });

  it('reports an alias inside the node it names, instead of recursing', () => {
    expectIssueAt(
      'rate_limit_policies: &loop\n  - @@*loop\n',
      'alias *loop refers to a node that contains it',
    );
  });

  it('reports an alias with no anchor', () => {
    expectIssueAt(
      'rate_limit_policies:\n  - @@*nowhere\n',
      'alias *nowhere has no anchor &nowhere before it',
    );
  });

  it('refuses keys that are not scalars', () => {
    expectIssueAt('? @@{ a: 1 }\n: x\n', 'mapping keys must be plain strings');
  });

  it('reports an unknown tag', () => {
    const result = check('rate_limit_policies: !secret []\n');
    expect(result.issues[0]).toMatchObject({ line: 1, col: 22, code: 'YAML_UNSUPPORTED' });
  });

  it('sorts issues by line and column', () => {
    const text = `token_exchange_profiles:
  - { name: ab, subject_token_type: urn:partner:x1, action_id: a, type: custom_authentication }
rate_limit_policies:
  - { resource: x, consumer: client, consumer_selector: default, configuration: { action: allow } }
`;
    expect(lines(check(text))).toEqual([
      '2:13: name must be at least 3 characters long',
      '4:17: resource must be one of: oauth_authentication_api',
    ]);
  });
});

describe('parseConfigText: variables', () => {
  const selector = (value: string) => POLICY.replace('client_id:abc123', () => value);
  // Block style: in a flow mapping ({ … }) the braces of ${NAME} are YAML syntax, so a reference there must be quoted.
  const blockPolicy = (limit: string) => `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration:
      action: block
      limit: ${limit}
`;

  it('replaces ${NAME} inside a value', () => {
    const result = check(selector('client_id:${CLIENT}'), { vars: { CLIENT: 'xyz' } });
    expect(result.desired[0]!.attributes.consumer_selector).toBe('client_id:xyz');
  });

  it('reports an unset variable at its reference, in plain and quoted scalars', () => {
    const message =
      'variable CLIENT is not set: pass a variable setting CLIENT=VALUE, put it in a variable file, or set TENANTFORM_VAR_CLIENT';
    expectIssueAt(selector('client_id:@@${CLIENT}'), message);
    expectIssueAt(selector('"client_id:@@${CLIENT}"'), message);
    expectIssueAt(selector("'client_id:@@${CLIENT}'"), message);
  });

  it('reports only the unset variable, not a schema error on the same value', () => {
    expect(check(blockPolicy('${LIMIT}')).issues.map((i) => i.code)).toEqual(['VAR_UNRESOLVED']);
  });

  it('gives a plain whole-value reference the type its value would have in YAML', () => {
    const result = check(blockPolicy('${LIMIT}'), { vars: { LIMIT: '250' } });
    expect(result.issues).toEqual([]);
    expect(result.desired[0]!.attributes.configuration).toMatchObject({ limit: 250 });
  });

  it('keeps a quoted whole-value reference a string', () => {
    const { text, line, col } = marked(blockPolicy('@@"${LIMIT}"'));
    expect(lines(check(text, { vars: { LIMIT: '250' } }))).toEqual([
      `${line}:${col}: limit must be a whole number`,
    ]);
  });

  it('writes $${ as a literal ${', () => {
    const text = FULL.replace('read:reports', () => 'read:$${literal}');
    const result = check(text);
    expect(result.issues).toEqual([]);
    expect(result.desired[1]!.attributes.permission_name).toBe('read:${literal}');
  });

  it('reports an unterminated reference and an invalid name', () => {
    expectIssueAt(
      selector('"client_id:@@${CLIENT"'),
      'unterminated variable reference "${": close it with "}", or write "$${" for a literal "${"',
    );
    expectIssueAt(
      selector('client_id:@@${1X}'),
      'invalid variable name "1X": use letters, digits and _, not starting with a digit (write "$${" for a literal "${")',
    );
  });

  it('does not interpolate mapping keys', () => {
    expectIssueAt('@@${KEY}: []\n', `unknown top-level key "\${KEY}"; allowed: ${configKeys()}`, {
      vars: { KEY: 'rate_limit_policies' },
    });
  });
});
