import { describe, expect, it } from 'vitest';
import { signJwt, verifyJwt, type AccessClaims } from './jwt.js';

const claims: AccessClaims = {
  iss: 'http://127.0.0.1:1/',
  sub: 'abc@clients',
  aud: 'http://127.0.0.1:1/api/v2/',
  iat: 1000,
  exp: 2000,
  scope: 'update:users',
  gty: 'client-credentials',
  azp: 'abc',
};

describe('HS256 tokens', () => {
  it('verifies a token it signed and returns the claims', () => {
    expect(verifyJwt(signJwt(claims, 'k'), 'k', 1500)).toEqual({ ok: true, claims });
  });

  it.each([
    ['another key', signJwt(claims, 'other'), 1500, 'signature'],
    ['an expired token', signJwt(claims, 'k'), 2000, 'expired'],
    ['two segments', 'a.b', 1500, 'malformed'],
    ['non-base64url characters', 'a.b.c+d', 1500, 'malformed'],
    ['a header that is not JSON', `x.${Buffer.from('{}').toString('base64url')}.sig`, 1500, 'malformed'],
    [
      'claims of the wrong type',
      signJwt({ ...claims, exp: 'later' } as unknown as AccessClaims, 'k'),
      1500,
      'claims',
    ],
  ])('refuses %s', (_name, token, now, reason) => {
    expect(verifyJwt(token, 'k', now)).toEqual({ ok: false, reason });
  });

  it('refuses alg none even with the right payload', () => {
    const [, payload] = signJwt(claims, 'k').split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    expect(verifyJwt(`${header}.${payload}.AAAA`, 'k', 1500)).toEqual({ ok: false, reason: 'signature' });
  });
});
