import { describe, expect, it } from 'vitest';
import { createRedactor, MASK, redact } from './redact.js';

describe('redact', () => {
  it('masks every occurrence of each known secret', () => {
    expect(redact('a sekret-1 b sekret-1', ['sekret-1'])).toBe(`a ${MASK} b ${MASK}`);
  });

  it('masks Authorization-style credentials and secret-named fields even when unknown', () => {
    expect(redact('authorization: Bearer abc.def-ghi')).toBe(`authorization: Bearer ${MASK}`);
    expect(redact('{"client_secret":"xyz","access_token": "t0k"}')).toBe(
      `{"client_secret":${MASK},"access_token": ${MASK}}`,
    );
    expect(redact('client_secret=xyz&grant_type=client_credentials')).toBe(
      `client_secret=${MASK}&grant_type=client_credentials`,
    );
  });

  it('masks the longest secret first so overlapping secrets leave no tail', () => {
    expect(redact('abcdefgh', ['abcd', 'abcdefgh'])).toBe(MASK);
  });

  it('ignores secrets too short to mask safely', () => {
    expect(redact('a b c', ['a'])).toBe('a b c');
  });
});

describe('createRedactor', () => {
  it('masks added secrets in their plain, percent-encoded and JSON-escaped forms', () => {
    const r = createRedactor(['p@ss/wo"rd']);
    expect(r.redact('x p@ss/wo"rd y')).toBe(`x ${MASK} y`);
    expect(r.redact(`x ${encodeURIComponent('p@ss/wo"rd')} y`)).toBe(`x ${MASK} y`);
    expect(r.redact('x p@ss/wo\\"rd y')).toBe(`x ${MASK} y`);
    r.add('later-token');
    expect(r.redact('later-token')).toBe(MASK);
  });
});
