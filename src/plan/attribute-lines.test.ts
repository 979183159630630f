import { describe, expect, it } from 'vitest';
import { attributeDiff, attributeLines } from './attribute-lines.js';

describe('attributeLines', () => {
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
