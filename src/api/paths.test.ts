import { describe, expect, it } from 'vitest';
import { encodeSegment, InvalidPathIdError, joinPath } from './paths.js';

describe('encodeSegment', () => {
  it.each([
    ['auth0|abc', 'auth0%7Cabc'],
    ['../x?y#z', '..%2Fx%3Fy%23z'],
    ['a/b', 'a%2Fb'],
    ['%', '%25'],
    ['rlp_abc', 'rlp_abc'],
    ['a b', 'a%20b'],
  ])('keeps %s inside one segment as %s', (id, encoded) => {
    expect(encodeSegment(id)).toBe(encoded);
    expect(encodeSegment(id)).not.toMatch(/[/?#]/);
  });

  it.each(['', '.', '..'])('refuses %j, which URL normalisation would fold away', (id) => {
    expect(() => encodeSegment(id, 'user id')).toThrow(InvalidPathIdError);
  });
});

describe('joinPath', () => {
  it('joins the base path and parts with single slashes', () => {
    expect(joinPath('/api/v2/', 'users', 'x', 'permissions')).toBe('/api/v2/users/x/permissions');
  });
});
