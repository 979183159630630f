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

  /** Characters JavaScript's trim() strips or YAML treats specially, but YAML's plain scalars keep. */
  const UNUSUAL = ['\u00a0', '\ufeff', '\u2028', '\u2029', '\u0085', '\u3000', '\u000b', '\u000c'];

  it.each([
    ['a trailing no-break space', 'name: Partner\u00a0\n'],
    ['a leading no-break space', 'name: \u00a0Partner\n'],
    ['a byte order mark after the value', 'name: Partner\ufeff\n'],
    ['a line separator after the value', 'name: Partner\u2028\n'],
    ['an ideographic space before a comment', 'name: Partner\u3000 # x\n'],
    ['a no-break space in a flow mapping', 'a: { name: Partner\u00a0, b: c }\n'],
    ['a no-break space as indentation', 'a:\n\u00a0 b: 1\n'],
    ['a form feed after the value', 'name: Partner\u000c\n'],
  ])('never changes a value with %s (leaves it to the full parser)', (_name, text) => {
    expect(parseFastYaml(text)).toBeNull();
    expectSameAsFullParser(text);
  });

  it('reads a profile named "Partner<NBSP>" as the full parser does, with or without a document marker', () => {
    const profile =
      'token_exchange_profiles:\n  - name: Partner SSO\u00a0\n    subject_token_type: urn:partner:legacy-token\n' +
      '    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c\n    type: custom_authentication\n';
    const plain = parseConfigText(profile, 'c.yaml');
    const marked = parseConfigText(`---\n${profile}`, 'c.yaml');
    expect(plain.issues).toEqual([]);
    expect(plain.resources[0]?.attributes.name).toBe('Partner SSO\u00a0');
    expect(marked.resources.map((r) => r.attributes)).toEqual(plain.resources.map((r) => r.attributes));
  });

  const asciiScalar = fc.oneof(
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
  /** An ASCII scalar with one unusual character at its start, middle or end. */
  const unusualScalar = fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9:|./_ -]{0,8}$/), fc.constantFrom(...UNUSUAL), fc.nat(2))
    .map(([text, odd, at]) =>
      at === 0 ? odd + text : at === 1 ? text + odd : text.slice(0, 2) + odd + text.slice(2),
    );
  const quoted = (s: string, style: number) => (style === 0 ? s : style === 1 ? `"${s}"` : `'${s}'`);

  it('leaves a top level that is not a mapping to the full parser, which reports it', () => {
    expect(parseFastYaml('- a\n- b\n')?.value).toEqual(['a', 'b']);
    expect(parseConfigText('- a\n- b\n', 'c.yaml').issues).not.toEqual([]);
    expectSameAsFullParser('- a\n- b\n');
  });

  it.each([
    ['ASCII scalars', asciiScalar, 100],
    [
      'scalars holding U+00A0, U+FEFF, U+2028 and other unusual characters',
      fc.oneof(asciiScalar, unusualScalar),
      10,
    ],
  ])(
    'agrees with the full parser on generated configs of %s, in any mix of styles',
    (_name, scalar, minTaken) => {
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
      // Many texts are in the subset (a scalar ending in ":", a negative limit or an unusual character is not): both paths are exercised.
      expect(taken).toBeGreaterThan(minTaken);
    },
  );
});
