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

/**
 * A route from its label, "METHOD /path" with {id} where a parameter stands;
 * `path` when the route also answers at another spelling of the same path.
 */
function route(name: RouteName, label: string, path = label.slice(label.indexOf(' ') + 1)): RouteDef {
  const pattern = path
    .split('/')
    .slice(1)
    .map((segment) => (segment === '{id}' ? ':' : segment));
  return { route: name, method: label.slice(0, label.indexOf(' ')), pattern, label };
}

export const ROUTES: readonly RouteDef[] = [
  route('createPolicy', 'POST /api/v2/rate-limit-policies'),
  route('updatePolicy', 'PATCH /api/v2/rate-limit-policies/{id}'),
  route('deletePolicy', 'DELETE /api/v2/rate-limit-policies/{id}'),
  route('assignPermissions', 'POST /api/v2/users/{id}/permissions'),
  route('removePermissions', 'DELETE /api/v2/users/{id}/permissions'),
  route('createProfile', 'POST /api/v2/token-exchange-profiles'),
  route('updateProfile', 'PATCH /api/v2/token-exchange-profiles/{id}'),
  route('deleteProfile', 'DELETE /api/v2/token-exchange-profiles/{id}'),
  route('listPolicies', 'GET /api/v2/rate-limit-policies'),
  route('getPolicy', 'GET /api/v2/rate-limit-policies/{id}'),
  route('listPermissions', 'GET /api/v2/users/{id}/permissions'),
  route('listProfiles', 'GET /api/v2/token-exchange-profiles'),
  route('getProfile', 'GET /api/v2/token-exchange-profiles/{id}'),
  route('token', 'POST /oauth/token'),
  route('token', 'POST /oauth/token', '/oauth/token/'),
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
