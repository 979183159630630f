import { describe, expect, it } from 'vitest';
import { EMULATOR_KINDS } from './kinds/index.js';
import { EMULATOR_REFERENCES } from './references/index.js';
import { matchRoute, routesFor } from './router.js';

/**
 * Every "METHOD /path" the emulator serves for the kinds of WRITTEN and the
 * reference lists, per API profile, written out once here and nowhere else:
 * the routes come from the descriptors the kind modules handle, so this list
 * is what keeps the emulator an independent check on the client's
 * descriptors (a changed descriptor path fails here). Another kind's routes
 * are its descriptors'; the service's answer to each of them
 * (test/fixtures/contract/, which test/contract.test.ts requires for every
 * route) is its independent check.
 */
const WRITTEN = ['rate_limit_policy', 'user_permission', 'token_exchange_profile'];
const SPEC_ROUTES = [
  'POST /api/v2/rate-limit-policies',
  'DELETE /api/v2/rate-limit-policies/{id}',
  'POST /api/v2/users/{id}/permissions',
  'POST /api/v2/token-exchange-profiles',
  'POST /oauth/token',
];
const FULL_ROUTES = [
  ...SPEC_ROUTES,
  'PATCH /api/v2/rate-limit-policies/{id}',
  'GET /api/v2/rate-limit-policies',
  'GET /api/v2/rate-limit-policies/{id}',
  'DELETE /api/v2/users/{id}/permissions',
  'GET /api/v2/users/{id}/permissions',
  'PATCH /api/v2/token-exchange-profiles/{id}',
  'DELETE /api/v2/token-exchange-profiles/{id}',
  'GET /api/v2/token-exchange-profiles',
  'GET /api/v2/token-exchange-profiles/{id}',
  'GET /api/v2/clients',
  'GET /api/v2/logs',
  'GET /api/v2/actions/actions',
  'GET /api/v2/resource-servers',
  'GET /api/v2/clients/{id}',
  'GET /api/v2/actions/actions/{id}',
  'GET /api/v2/resource-servers/{id}',
];

// What startEmulator serves: under full the tenant also holds its reference lists.
const full = routesFor([...EMULATOR_KINDS, ...EMULATOR_REFERENCES], 'full');
const spec = routesFor(EMULATOR_KINDS, 'spec');
const others = EMULATOR_KINDS.filter((m) => !WRITTEN.includes(m.kind.name));

describe('routes', () => {
  it.each([
    ['spec', spec, SPEC_ROUTES],
    ['full', full, FULL_ROUTES],
  ] as const)('under API profile %s are exactly the ones written here', (profile, routes, labels) => {
    const more = routesFor(others, profile).map((r) => r.label);
    expect(new Set(routes.map((r) => r.label))).toEqual(new Set([...labels, ...more]));
  });

  it.each([
    ['POST', '/api/v2/rate-limit-policies', 'createRateLimitPolicy', {}],
    ['DELETE', '/api/v2/rate-limit-policies/rlp_1', 'deleteRateLimitPolicy', { id: 'rlp_1' }],
    ['POST', '/api/v2/users/auth0%7Cabc/permissions', 'assignUserPermissions', { user_id: 'auth0|abc' }],
    ['POST', '/api/v2/users/a%2Fb/permissions', 'assignUserPermissions', { user_id: 'a/b' }],
    ['POST', '/api/v2/users/%2525/permissions', 'assignUserPermissions', { user_id: '%25' }],
    ['POST', '/api/v2/token-exchange-profiles', 'createTokenExchangeProfile', {}],
    ['PATCH', '/api/v2/rate-limit-policies/rlp_1', 'updateRateLimitPolicy', { id: 'rlp_1' }],
    ['DELETE', '/api/v2/users/auth0%7Cabc/permissions', 'removeUserPermissions', { user_id: 'auth0|abc' }],
    ['PATCH', '/api/v2/token-exchange-profiles/tep_1', 'updateTokenExchangeProfile', { id: 'tep_1' }],
    ['DELETE', '/api/v2/token-exchange-profiles/tep_1', 'deleteTokenExchangeProfile', { id: 'tep_1' }],
    ['GET', '/api/v2/clients', 'listClients', {}],
    ['GET', '/api/v2/actions/actions', 'listActions', {}],
    ['GET', '/api/v2/resource-servers', 'listResourceServers', {}],
    ['GET', '/api/v2/clients/abc', 'getClient', { id: 'abc' }],
    ['GET', '/api/v2/actions/actions/a-1', 'getAction', { id: 'a-1' }],
    ['GET', '/api/v2/resource-servers/https%3A%2F%2Fapi%2F', 'getResourceServer', { id: 'https://api/' }],
    ['POST', '/oauth/token', 'token', {}],
    ['POST', '/oauth/token/', 'token', {}],
  ])('%s %s → %s %o', (method, path, route, params) => {
    expect(matchRoute(method, path, full)).toMatchObject({ kind: 'match', route, params });
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
    const match = matchRoute(method, path, full);
    expect(match.kind).toBe('error');
    if (match.kind === 'error') expect(match.error.status).toBe(status);
  });

  it('names the methods a known path allows, in a stable order', () => {
    const match = matchRoute('POST', '/api/v2/rate-limit-policies/rlp_1', full);
    expect(match.kind === 'error' && match.error.headers.Allow).toBe('PATCH, DELETE, GET');
  });

  it.each([
    ['DELETE', '/api/v2/users/x/permissions', 405, 'POST'],
    ['PATCH', '/api/v2/rate-limit-policies/rlp_1', 405, 'DELETE'],
    ['PATCH', '/api/v2/token-exchange-profiles/tep_1', 404, undefined],
    ['DELETE', '/api/v2/token-exchange-profiles/tep_1', 404, undefined],
  ])(
    'under API profile spec, %s %s → %i as before the full profile existed',
    (method, path, status, allow) => {
      const match = matchRoute(method, path, spec);
      expect(match.kind).toBe('error');
      if (match.kind === 'error') {
        expect(match.error.status).toBe(status);
        expect(match.error.headers.Allow).toBe(allow);
      }
    },
  );
});
