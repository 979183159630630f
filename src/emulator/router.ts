/**
 * Which operation a request names. Paths are split on "/" before decoding;
 * fixed segments must match literally and each {id} segment is
 * percent-decoded exactly once, so "auth0%7Cabc" is the id "auth0|abc" and an
 * encoded "%2F" stays inside the id. A malformed escape is a 400 (invalid_uri).
 * An empty {id}, a trailing slash or any other path is a 404; a known path
 * with another method is a 405 with an Allow header. The token endpoint is
 * served at both /oauth/token and /oauth/token/.
 */
import {
  descriptorsOf,
  pathParams,
  profileIncludes,
  type ApiProfile,
  type OperationDescriptor,
} from '../resources/index.js';
import { HttpError } from './errors.js';
import type { EmulatorKind } from './kinds/index.js';

/** An operation route: the descriptor it serves and the kind module whose handler answers it. */
export interface OperationRoute {
  module: EmulatorKind;
  op: OperationDescriptor;
  /** The API profile the emulator serves (some answers differ under full: observed, where spec is silent). */
  profile: ApiProfile;
}

export interface RouteDef {
  /** The descriptor's name, or 'token' for the token endpoint. */
  route: string;
  method: string;
  /** Path segments after the leading "/"; ":" where a parameter stands. */
  pattern: readonly string[];
  /** The parameters' names, in path order. */
  params: readonly string[];
  /** "METHOD /path" with {id} where any parameter stands: the route's name in the stats. */
  label: string;
  /** Absent for the token endpoint. */
  operation?: OperationRoute;
}

export type RouteMatch =
  | { kind: 'match'; route: string; label: string; params: Record<string, string>; def: RouteDef }
  | { kind: 'error'; error: HttpError };

function route(method: string, path: string, name: string, operation?: OperationRoute): RouteDef {
  const segments = path.split('/').slice(1);
  return {
    route: name,
    method,
    pattern: segments.map((s) => (/^\{.+\}$/.test(s) ? ':' : s)),
    params: pathParams(path),
    label: `${method} ${path.replace(/\{[^}]+\}/g, '{id}')}`,
    ...(operation ? { operation } : {}),
  };
}

/** The token endpoint, at /oauth/token and /oauth/token/. */
const TOKEN_ROUTES: readonly RouteDef[] = [
  route('POST', '/oauth/token', 'token'),
  { ...route('POST', '/oauth/token/', 'token'), label: 'POST /oauth/token' },
];

/**
 * The routes an emulator with API profile `profile` serves: each kind
 * module's handlers, at the method and path of the descriptor each is named
 * after (below /api/v2), when the profile includes the descriptor's; and the
 * token endpoint. A handler named after no descriptor of its kind is a bug.
 */
export function routesFor(kinds: readonly EmulatorKind[], profile: ApiProfile): RouteDef[] {
  const routes: RouteDef[] = [];
  for (const module of kinds) {
    const ops = descriptorsOf(module.kind.operations);
    for (const name of Object.keys(module.handlers)) {
      const op = ops.find((o) => o.name === name);
      if (!op)
        throw new Error(`internal: ${module.key} handles ${name}, which ${module.kind.name} does not have`);
      if (profileIncludes(profile, op.profile))
        routes.push(route(op.method, `/api/v2${op.path}`, op.name, { module, op, profile }));
    }
  }
  return [...routes, ...TOKEN_ROUTES];
}

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
export function matchRoute(method: string, path: string, routes: readonly RouteDef[]): RouteMatch {
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
    const values = def.pattern.flatMap((p, i) => (p === ':' ? [decodeParam(segments[i]!)] : []));
    const params = Object.fromEntries(def.params.map((name, i) => [name, values[i]!]));
    return { kind: 'match', route: def.route, label: def.label, params, def };
  } catch (err) {
    return { kind: 'error', error: err as HttpError };
  }
}
