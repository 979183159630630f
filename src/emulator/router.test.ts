import { describe, expect, it } from 'vitest';
import { routesFor } from './api.js';
import { matchRoute } from './router.js';

describe('routes', () => {
  it.each([
    ['POST', '/api/v2/rate-limit-policies', 'createPolicy', []],
    ['DELETE', '/api/v2/rate-limit-policies/rlp_1', 'deletePolicy', ['rlp_1']],
    ['POST', '/api/v2/users/auth0%7Cabc/permissions', 'assignPermissions', ['auth0|abc']],
    ['POST', '/api/v2/users/a%2Fb/permissions', 'assignPermissions', ['a/b']],
    ['POST', '/api/v2/users/%2525/permissions', 'assignPermissions', ['%25']],
    ['POST', '/api/v2/token-exchange-profiles', 'createProfile', []],
    ['PATCH', '/api/v2/rate-limit-policies/rlp_1', 'updatePolicy', ['rlp_1']],
    ['DELETE', '/api/v2/users/auth0%7Cabc/permissions', 'removePermissions', ['auth0|abc']],
    ['PATCH', '/api/v2/token-exchange-profiles/tep_1', 'updateProfile', ['tep_1']],
    ['DELETE', '/api/v2/token-exchange-profiles/tep_1', 'deleteProfile', ['tep_1']],
    ['POST', '/oauth/token', 'token', []],
    ['POST', '/oauth/token/', 'token', []],
  ])('%s %s → %s %o', (method, path, route, params) => {
    expect(matchRoute(method, path)).toMatchObject({ kind: 'match', route, params });
  });

  it.each([
    ['POST', '/api/v2/users//permissions', 404],
    ['POST', '/api/v2/users/a/b/permissions', 404],
    ['POST', '/api/v2/rate-limit-policies/', 404],
    ['POST', '/api/v2/rate%2Dlimit-policies', 404],
    ['GET', '/oauth/token', 405],
    ['POST', '/api/v2/rate-limit-policies/rlp_1', 405],
    ['DELETE', '/api/v2/rate-limit-policies/%ZZ', 400],
  ])('%s %s → %i', (method, path, status) => {
    const match = matchRoute(method, path);
    expect(match.kind).toBe('error');
    if (match.kind === 'error') expect(match.error.status).toBe(status);
  });

  it.each([
    ['DELETE', '/api/v2/users/x/permissions', 405, 'POST'],
    ['PATCH', '/api/v2/rate-limit-policies/rlp_1', 405, 'DELETE'],
    ['PATCH', '/api/v2/token-exchange-profiles/tep_1', 404, undefined],
    ['DELETE', '/api/v2/token-exchange-profiles/tep_1', 404, undefined],
  ])(
    'under API profile spec, %s %s → %i as before the full profile existed',
    (method, path, status, allow) => {
      const match = matchRoute(method, path, routesFor('spec'));
      expect(match.kind).toBe('error');
      if (match.kind === 'error') {
        expect(match.error.status).toBe(status);
        expect(match.error.headers.Allow).toBe(allow);
      }
    },
  );
});
