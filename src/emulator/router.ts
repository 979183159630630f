/**
 * Which operation a request names. Paths are split on "/" before decoding;
 * fixed segments must match literally and each {id} segment is
 * percent-decoded exactly once, so "auth0%7Cabc" is the id "auth0|abc" and an
 * encoded "%2F" stays inside the id. A malformed escape is a 400 (invalid_uri).
 * An empty {id}, a trailing slash or any other path is a 404; a known path
 * with another method is a 405 with an Allow header. The token endpoint is
 * served at both /oauth/token and /oauth/token/.
 */
import { HttpError } from './errors.js';

export type RouteName =
  | 'createPolicy'
  | 'updatePolicy'
  | 'deletePolicy'
  | 'assignPermissions'
  | 'removePermissions'
  | 'createProfile'
  | 'updateProfile'
  | 'deleteProfile'
  | 'listPolicies'
  | 'getPolicy'
  | 'listPermissions'
  | 'listProfiles'
  | 'getProfile'
  | 'token';

export type RouteMatch =
  { kind: 'match'; route: RouteName; label: string; params: string[] } | { kind: 'error'; error: HttpError };

export interface RouteDef {
  route: RouteName;
  method: string;
  pattern: readonly string[];
  label: string;
}

export const ROUTES: readonly RouteDef[] = [
  {
    route: 'createPolicy',
    method: 'POST',
    pattern: ['api', 'v2', 'rate-limit-policies'],
    label: 'POST /api/v2/rate-limit-policies',
  },
  {
    route: 'updatePolicy',
    method: 'PATCH',
    pattern: ['api', 'v2', 'rate-limit-policies', ':'],
    label: 'PATCH /api/v2/rate-limit-policies/{id}',
  },
  {
    route: 'deletePolicy',
    method: 'DELETE',
    pattern: ['api', 'v2', 'rate-limit-policies', ':'],
    label: 'DELETE /api/v2/rate-limit-policies/{id}',
  },
  {
    route: 'assignPermissions',
    method: 'POST',
    pattern: ['api', 'v2', 'users', ':', 'permissions'],
    label: 'POST /api/v2/users/{id}/permissions',
  },
  {
    route: 'removePermissions',
    method: 'DELETE',
    pattern: ['api', 'v2', 'users', ':', 'permissions'],
    label: 'DELETE /api/v2/users/{id}/permissions',
  },
  {
    route: 'createProfile',
    method: 'POST',
    pattern: ['api', 'v2', 'token-exchange-profiles'],
    label: 'POST /api/v2/token-exchange-profiles',
  },
  {
    route: 'updateProfile',
    method: 'PATCH',
    pattern: ['api', 'v2', 'token-exchange-profiles', ':'],
    label: 'PATCH /api/v2/token-exchange-profiles/{id}',
  },
  {
    route: 'deleteProfile',
    method: 'DELETE',
    pattern: ['api', 'v2', 'token-exchange-profiles', ':'],
    label: 'DELETE /api/v2/token-exchange-profiles/{id}',
  },
  {
    route: 'listPolicies',
    method: 'GET',
    pattern: ['api', 'v2', 'rate-limit-policies'],
    label: 'GET /api/v2/rate-limit-policies',
  },
  {
    route: 'getPolicy',
    method: 'GET',
    pattern: ['api', 'v2', 'rate-limit-policies', ':'],
    label: 'GET /api/v2/rate-limit-policies/{id}',
  },
  {
    route: 'listPermissions',
    method: 'GET',
    pattern: ['api', 'v2', 'users', ':', 'permissions'],
    label: 'GET /api/v2/users/{id}/permissions',
  },
  {
    route: 'listProfiles',
    method: 'GET',
    pattern: ['api', 'v2', 'token-exchange-profiles'],
    label: 'GET /api/v2/token-exchange-profiles',
  },
  {
    route: 'getProfile',
    method: 'GET',
    pattern: ['api', 'v2', 'token-exchange-profiles', ':'],
    label: 'GET /api/v2/token-exchange-profiles/{id}',
  },
  { route: 'token', method: 'POST', pattern: ['oauth', 'token'], label: 'POST /oauth/token' },
  { route: 'token', method: 'POST', pattern: ['oauth', 'token', ''], label: 'POST /oauth/token' },
];

function fits(pattern: readonly string[], segments: readonly string[]): boolean {
  return (
    pattern.length === segments.length &&
    pattern.every((p, i) => (p === ':' ? segments[i] !== '' : p === segments[i]))
  );
}

function decodeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(
      400,
      `Path validation error: "${segment}" is not correctly percent-encoded`,
      'invalid_uri',
    );
  }
}

/**
 * Finds the route for `method` and a raw (still encoded) path starting with
 * "/" among `routes` (the routes the emulator's API profile serves; a route
 * left out answers as if it did not exist: 404, or 405 when the path has
 * another method).
 */
export function matchRoute(method: string, path: string, routes: readonly RouteDef[] = ROUTES): RouteMatch {
  const segments = path.split('/').slice(1);
  const candidates = routes.filter((r) => fits(r.pattern, segments));
  if (candidates.length === 0) {
    return { kind: 'error', error: new HttpError(404, `Not found: ${method} ${path}`, 'not_found') };
  }
  const def = candidates.find((r) => r.method === method);
  if (!def) {
    const allow = [...new Set(candidates.map((r) => r.method))].join(', ');
    return {
      kind: 'error',
      error: new HttpError(
        405,
        `Method ${method} is not allowed here; allowed: ${allow}`,
        'method_not_allowed',
        {
          Allow: allow,
        },
      ),
    };
  }
  try {
    const params = def.pattern.flatMap((p, i) => (p === ':' ? [decodeParam(segments[i]!)] : []));
    return { kind: 'match', route: def.route, label: def.label, params };
  } catch (err) {
    return { kind: 'error', error: err as HttpError };
  }
}
