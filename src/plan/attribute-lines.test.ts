import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import { canonicalize } from './canonical.js';

describe('attributeLines', () => {
  it('shows undefined values as absent: an object of them only is {}, a key of one is left out', () => {
    expect(
      attributeLines('rate_limit_policy', {
        resource: 'r',
        gone: undefined,
        configuration: { action: 'allow', limit: undefined },
        empty: { a: undefined },
        list: [undefined, { b: undefined }],
      }),
    ).toEqual([
      'resource: "r"',
      'configuration:',
      '  action: "allow"',
      'empty: {}',
      'list:',
      '  - null',
      '  - {}',
    ]);
  });

  it('gives the same lines whatever the key order, as for the canonical copy', () => {
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(undefined, null, true, 0, 'x', 'a"b'),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'z', 'user_id', 'odd key'), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    const attributes = fc.dictionary(
      fc.constantFrom('user_id', 'resource_server_identifier', 'b', 'a'),
      json,
      {
        maxKeys: 4,
      },
    );
    fc.assert(
      fc.property(attributes, (attrs) => {
        const lines = attributeLines('user_permission', attrs);
        const reversed = Object.fromEntries(Object.entries(attrs).reverse());
        expect(attributeLines('user_permission', reversed)).toEqual(lines);
        const canonical = canonicalize(attrs, ['user_id', 'resource_server_identifier', 'permission_name']);
        expect(attributeLines('user_permission', canonical as Record<string, unknown>)).toEqual(lines);
      }),
    );
  });

  it('lists identity fields first, then the rest sorted, strings quoted', () => {
    expect(
      attributeLines('token_exchange_profile', {
        type: 'custom_authentication',
        name: 'p',
        subject_token_type: 'urn:x',
        action_id: 'a',
      }),
    ).toEqual([
      'subject_token_type: "urn:x"',
      'action_id: "a"',
      'name: "p"',
      'type: "custom_authentication"',
    ]);
  });

  it('nests objects and arrays with two-space indents, and quotes odd keys', () => {
    expect(
      attributeLines('user_permission', {
        user_id: 'u',
        list: [1, { b: 2, a: [] }, 'x'],
        'odd key': {},
        flag: true,
        none: null,
      }),
    ).toEqual([
      'user_id: "u"',
      'flag: true',
      'list:',
      '  - 1',
      '  - a: []',
      '    b: 2',
      '  - "x"',
      'none: null',
      '"odd key": {}',
    ]);
  });
});

describe('attributeDiff', () => {
  it('returns only the hunks, with removed and added lines', () => {
    const hunks = attributeDiff(
      'token_exchange_profile',
      { subject_token_type: 't', name: 'a' },
      { subject_token_type: 't', name: 'b' },
    );
    expect(hunks).toEqual([
      { header: '@@ -1,2 +1,2 @@', lines: [' subject_token_type: "t"', '-name: "a"', '+name: "b"'] },
    ]);
  });

  it('returns no hunks for attributes that differ only in key order', () => {
    expect(attributeDiff('user_permission', { a: 1, b: 2 }, { b: 2, a: 1 })).toEqual([]);
  });
});
