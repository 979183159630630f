import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFastYaml } from './fast-yaml.js';
import { parseConfigText, parseWithYaml } from './parse-text.js';

/** Same answer from the fast path (when it takes the text) and the full YAML parser. */
function expectSameAsFullParser(text: string): void {
  expect(parseConfigText(text, 'c.yaml')).toEqual(parseWithYaml(text, 'c.yaml'));
}

const policyBlock = (selector: string, limit: string) =>
  `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration:\n      action: block\n      limit: ${limit}\n`;

describe('fast YAML path', () => {
  it('reads block and flow mappings with item positions', () => {
    const text =
      '# comment\nrate_limit_policies:\n' +
      policyBlock('default', '10') +
      '  - { resource: oauth_authentication_api, consumer: client, consumer_selector: cimd_clients, configuration: { action: allow } }\n';
    const fast = parseFastYaml(text);
    expect(fast).toBeNull(); // nested flow mappings are left to the full parser
    const simple =
      'user_permissions:\n- user_id: "auth0|1"\n  permissions:\n    - { resource_server_identifier: "x", permission_name: y }\n';
    expect(parseFastYaml(simple)).toBeNull(); // quotes inside a flow mapping: full parser
    const plain =
      'user_permissions:\n- user_id: "auth0|1"\n  permissions:\n    - { resource_server_identifier: x, permission_name: y }\n';
    const result = parseFastYaml(plain);
    expect(result?.value).toEqual({
      user_permissions: [
        { user_id: 'auth0|1', permissions: [{ resource_server_identifier: 'x', permission_name: 'y' }] },
      ],
    });
    expectSameAsFullParser(plain);
    expectSameAsFullParser(text);
  });

  it.each([
    ['a decimal integer', 'limit: 10', 10],
    ['leading zeros', 'limit: 007', 7],
    ['a plus sign', 'limit: +5', 5],
    ['a string with a colon', 'name: a:b', 'a:b'],
    ['a URL with a fragment', 'name: https://x.example/a?b=1#c', 'https://x.example/a?b=1#c'],
    ['a trailing comment', 'name: abc # note', 'abc'],
    ['a single-quoted escape', "name: 'it''s'", "it's"],
    ['a double-quoted hash', 'name: "a #b"', 'a #b'],
    ['a pipe inside', 'name: auth0|abc', 'auth0|abc'],
  ])('types %s like YAML 1.2 core', (_name, line, expected) => {
    const fast = parseFastYaml(line);
    expect(fast?.value).toEqual({ [line.split(':')[0]!]: expected });
  });

  it.each([
    ['true'],
    ['null'],
    ['~'],
    ['1.5'],
    ['1e3'],
    ['0x1F'],
    ['0o17'],
    ['.inf'],
    ['-5'],
    ['&anchor x'],
    ['*alias'],
    ['!tag x'],
    ['|'],
    ['>'],
    ['[a, b]'],
    ['"esc\\"aped"'],
    ['${VAR}'],
    ['a: b'],
    ['9007199254740993'],
  ])('gives up on %s (left to the full parser)', (value) => {
    expect(parseFastYaml(`name: ${value}`)).toBeNull();
  });

  it.each([
    ['a tab', 'a:\n\tb: 1\n'],
    ['CRLF line ends', 'a: 1\r\nb: 2\r\n'],
    ['several documents', 'a: 1\n---\nb: 2\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['an empty value', 'a:\nb: 1\n'],
    ['a prototype key', '__proto__: 1\n'],
    ['a quoted key', '"a": 1\n'],
    ['odd indentation', 'a:\n  b: 1\n c: 2\n'],
  ])('gives up on %s', (_name, text) => {
    expect(parseFastYaml(text)).toBeNull();
    expectSameAsFullParser(text);
  });

  const scalar = fc.oneof(
    fc.constantFrom(
      'default',
      'cimd_clients',
      'client_id:abc',
      'x',
      'auth0|1',
      'read:reports',
      'https://a.example/',
    ),
    fc.stringMatching(/^[a-z][a-z0-9:|./_-]{0,12}$/),
  );
  const quoted = (s: string, style: number) => (style === 0 ? s : style === 1 ? `"${s}"` : `'${s}'`);

  it('leaves a top level that is not a mapping to the full parser, which reports it', () => {
    expect(parseFastYaml('- a\n- b\n')?.value).toEqual(['a', 'b']);
    expect(parseConfigText('- a\n- b\n', 'c.yaml').issues).not.toEqual([]);
    expectSameAsFullParser('- a\n- b\n');
  });

  it('agrees with the full parser on generated configs, in any mix of styles', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(scalar, fc.integer({ min: -5, max: 20_000 }), fc.nat(2), fc.boolean()), {
          maxLength: 5,
        }),
        fc.array(
          fc.tuple(scalar, fc.array(fc.tuple(scalar, scalar, fc.nat(2)), { maxLength: 3 }), fc.boolean()),
          {
            maxLength: 4,
          },
        ),
        fc.boolean(),
        (policies, users, comments) => {
          let text = comments ? '# generated\n\n' : '';
          if (policies.length > 0) text += 'rate_limit_policies:\n';
          for (const [selector, limit, style, flow] of policies) {
            text += `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${quoted(`client_id:${selector}`, style)}\n`;
            text += flow
              ? `    configuration: { action: log, limit: ${limit} }\n`
              : `    configuration:\n      action: log\n      limit: ${limit}${comments ? ' # rps' : ''}\n`;
          }
          if (users.length > 0) text += 'user_permissions:\n';
          for (const [user, perms, compact] of users) {
            text += `${compact ? '' : '  '}- user_id: ${quoted(user, 1)}\n`;
            const pad = compact ? '  ' : '    ';
            text += `${pad}permissions:\n`;
            for (const [rs, name, style] of perms) {
              text += `${pad}  - resource_server_identifier: ${quoted(rs, style)}\n${pad}    permission_name: ${quoted(name, 2 - style)}\n`;
            }
          }
          if (parseFastYaml(text) !== null) taken++;
          expectSameAsFullParser(text);
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
    // Most texts are in the subset (a scalar ending in ":" or a negative limit is not): both paths are exercised.
    expect(taken).toBeGreaterThan(100);
  });
});
