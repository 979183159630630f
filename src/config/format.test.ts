import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatConfigText } from './format.js';
import { parseConfigText } from './parse-text.js';
import { YAML } from './yaml-lib.js';

const MESSY = `# yaml-language-server: $schema=../schemas/config.schema.json
token_exchange_profiles:
- type: custom_authentication   # the only type
  action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
  subject_token_type: "urn:partner:legacy-token"
  name: 'Partner SSO'
rate_limit_policies:
  # the catch-all
  - consumer_selector: default
    consumer: client
    resource: oauth_authentication_api
    configuration: {limit: 100, action: block}  # tight


  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: "client_id:abc"
    configuration:
      redirect_uri: "\${SUPPORT_URL}/slow"
      action: redirect   # send them away
      limit: \${LOGIN_LIMIT}
user_permissions:
  - permissions:
      - { permission_name: "read:reports", resource_server_identifier: "https://api.example.com/" }
    user_id: "auth0|5f7c8ec7c33c6c004bbafe82"
`;

const CANONICAL = `# yaml-language-server: $schema=../schemas/config.schema.json
rate_limit_policies:
  # the catch-all
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration:
      # tight
      action: block
      limit: 100

  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:abc
    configuration:
      action: redirect # send them away
      limit: \${LOGIN_LIMIT}
      redirect_uri: "\${SUPPORT_URL}/slow"
user_permissions:
  - user_id: auth0|5f7c8ec7c33c6c004bbafe82
    permissions:
      - resource_server_identifier: https://api.example.com/
        permission_name: read:reports
token_exchange_profiles:
  - name: Partner SSO
    subject_token_type: urn:partner:legacy-token
    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
    type: custom_authentication # the only type
`;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith('.') || name === 'tenantform.yaml') return []; // as fmt walks a directory
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

describe('formatConfigText', () => {
  it('orders keys as the schemas do, writes blocks, unquotes, and keeps every comment', () => {
    const { text, issues } = formatConfigText(MESSY, 'messy.yaml');
    expect(issues).toEqual([]);
    expect(text).toBe(CANONICAL);
  });

  it('is idempotent: formatting the result again changes nothing', () => {
    const once = formatConfigText(MESSY, 'messy.yaml').text;
    expect(formatConfigText(once, 'messy.yaml').text).toBe(once);
  });

  it('keeps what a file says, including whether a ${NAME} reference is quoted', () => {
    const vars = { LIMIT: '100', LOGIN_LIMIT: '5', SUPPORT_URL: 'https://status.example.com' };
    const before = parseConfigText(MESSY, 'a.yaml', { vars });
    const after = parseConfigText(formatConfigText(MESSY, 'a.yaml').text, 'a.yaml', { vars });
    expect(before.issues).toEqual([]);
    expect(after.issues).toEqual([]);
    const data = (r: typeof before) => r.resources.map((d) => [d.address, d.attributes]);
    expect(data(after).sort()).toEqual(data(before).sort());
  });

  it('leaves a file with a syntax error alone and says where', () => {
    const text = 'rate_limit_policies:\n  - resource: [unclosed\n';
    const result = formatConfigText(text, 'bad.yaml');
    expect(result.text).toBe(text);
    expect(result.issues[0]).toMatchObject({ file: 'bad.yaml', code: 'YAML_SYNTAX' });
    expect(result.issues[0]!.line).toBeGreaterThan(0);
  });

  it('formats every document of a multi-document file and keeps unknown files in their own key order', () => {
    const text = 'b: 1\na:   2\n---\nrate_limit_policies: []\n';
    expect(formatConfigText(text, 'x.yaml').text).toBe('b: 1\na: 2\n---\nrate_limit_policies: []\n');
  });

  it('finds nothing to change in the examples and fixtures that are already canonical, and is idempotent on all fixtures', () => {
    for (const file of yamlFiles('examples')) {
      const text = readFileSync(file, 'utf8');
      expect(formatConfigText(text, file).text, file).toBe(text);
    }
    for (const file of yamlFiles('test/fixtures')) {
      const once = formatConfigText(readFileSync(file, 'utf8'), file);
      if (once.issues.length > 0) continue; // fixtures with syntax errors
      expect(formatConfigText(once.text, file).text, file).toBe(once.text);
    }
  });

  it('formats nested aliases without expanding them: 40 levels, 2^40 nodes expanded, a few kilobytes of text', () => {
    // Each level repeats the one before twice: expanded, the last one holds 2^40 scalars.
    const lines = ['levels:', '  - &l0 [x, x]'];
    for (let i = 1; i < 40; i++) lines.push(`  - &l${i} [*l${i - 1}, *l${i - 1}]`);
    const result = formatConfigText(`${lines.join('\n')}\n`, 'aliases.yaml');
    expect(result.issues).toEqual([]);
    expect(result.text).toContain('  - &l39\n    - *l38\n    - *l38\n');
    // The layout changed and the structure did not: anchors and aliases as they were.
    expect(result.text.match(/\*l\d+/g)).toHaveLength(78);
    expect(formatConfigText(result.text, 'aliases.yaml').text).toBe(result.text);
  });

  it('keeps what a file with aliases says, expanded', () => {
    const text = 'base: &base {action: block, limit: 5}\nother: {copy: *base, more: [*base]}\n';
    const result = formatConfigText(text, 'x.yaml');
    expect(result.issues).toEqual([]);
    const parse = (t: string) => YAML.parse(t) as unknown;
    expect(parse(result.text)).toEqual(parse(text));
    expect(result.text).not.toBe(text);
  });
});
