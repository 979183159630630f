/**
 * Where the emulator's answers come from, route by route: each kind and
 * reference list module declares its routes' facts (`sources`, by descriptor
 * name), and the router's checks, which apply to every route, are declared
 * here. `npm run gen:docs` writes them as the table of docs/emulator.md
 * ("Where each behaviour comes from"), so a new module's routes appear there
 * without a hand edit.
 */
import { descriptorsOf, type Declaration, type OperationDescriptor } from '../resources/index.js';

/** One behaviour of a route and its source (spec, docs, SDK, observed or choice), in words. */
export type RouteFact = readonly [behaviour: string, source: string];

/** Some of a module's routes, by descriptor name (one row of the table), and their behaviours' sources. */
export interface RouteSources {
  operations: readonly string[];
  facts: readonly RouteFact[];
}

/** What every route answers before its module sees the request (the router's checks). */
export const EVERY_ROUTE: RouteFact = [
  '401, 403 naming the scope, 413, 415, 429 with `X-RateLimit-*`',
  'spec (401, 403, 429), observed (the 429 body); the rest a choice',
];

/** A route as the table names it: "GET /users/{id}/permissions" (a path parameter shown as {id}). */
export function routeName(op: Pick<OperationDescriptor, 'method' | 'path'>): string {
  return `${op.method} ${op.path.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, '{id}')}`;
}

/** The descriptor a module's sources name; throws for a name its declaration lacks. */
function named(kind: Declaration, name: string): OperationDescriptor {
  const op = descriptorsOf(kind.operations).find((d) => d.name === name);
  if (!op) throw new Error(`internal: the sources of ${kind.name} name ${name}, which it does not declare`);
  return op;
}

/** The table's rows, [routes, behaviour, source]: module by module as declared, then every route's. */
export function routeSourceRows(
  modules: readonly { kind: Declaration; sources: readonly RouteSources[] }[],
): [string, string, string][] {
  const rows: [string, string, string][] = [];
  for (const { kind, sources } of modules) {
    for (const { operations, facts } of sources) {
      const routes = operations.map((name) => `\`${routeName(named(kind, name))}\``).join(', ');
      facts.forEach(([behaviour, source], i) => rows.push([i === 0 ? routes : '', behaviour, source]));
    }
  }
  rows.push(['every route', ...EVERY_ROUTE]);
  return rows;
}
