/**
 * Endpoint groups: routes whose requests draw on a bucket of their own, with
 * its own burst, step and window, instead of the tenant's. The service limits
 * some endpoints in groups (its api_limit log events name them, e.g. "Global
 * per second default group limit", "users_write group", "per minute
 * organization_connections_read group"), and each answer's X-RateLimit-*
 * headers describe the bucket of that request's group. Its public docs list
 * groups for organizations and, on some plans, reads of users, and none for
 * the routes tenantform calls (rate limit policies, user permissions, token
 * exchange profiles): so by default every route is in the tenant's one group
 * (a choice), and a test or the bench assigns routes to groups of their own.
 * A group's routes draw on its bucket alone (a choice: the service also checks
 * the tenant-wide limit first, which its answers' headers do not show).
 */
import { EmulatorOptionError } from './option-error.js';
import { RateLimiter, WindowBucket, type Limiter } from './rate-limit.js';

export interface RateLimitGroupOptions {
  /** The group's name, as the service's log events would give it (e.g. users_write). */
  name: string;
  /** Route labels, as the emulator's stats name them: "POST /api/v2/users/{id}/permissions". */
  routes: string[];
  burst: number;
  /** Tokens added at the top of each window. */
  perWindow: number;
  /** Window length in whole seconds. Default 1. */
  windowSec?: number;
}

export type RateLimitGroup = Required<RateLimitGroupOptions>;

function fail(message: string): never {
  throw new EmulatorOptionError(message);
}

const whole = (n: unknown, min: number): n is number => Number.isInteger(n) && (n as number) >= min;

/** Checks `groups` and fills in the window; every route in one group at most. */
export function resolveGroups(groups: readonly RateLimitGroupOptions[], model: string): RateLimitGroup[] {
  const seen = new Set<string>();
  return groups.map((g, i) => {
    const where = `rateLimit.groups[${i}]`;
    if (typeof g.name !== 'string' || g.name.trim() === '') fail(`${where}.name must be a non-empty string`);
    if (!Array.isArray(g.routes) || g.routes.length === 0)
      fail(`${where}.routes must list at least one route`);
    for (const route of g.routes) {
      if (typeof route !== 'string' || !/^[A-Z]+ \/\S*$/.test(route))
        fail(`${where}.routes: ${JSON.stringify(route)} is not "METHOD /path"`);
      if (seen.has(route)) fail(`${where}.routes: ${route} is in two groups`);
      seen.add(route);
    }
    if (!whole(g.burst, 1)) fail(`${where}.burst must be a whole number of at least 1 (got ${g.burst})`);
    const windowSec = g.windowSec ?? 1;
    if (!whole(windowSec, 1)) fail(`${where}.windowSec must be a whole number of seconds (got ${windowSec})`);
    const wholeStep = model === 'window' ? whole(g.perWindow, 1) : g.perWindow > 0;
    if (!wholeStep) fail(`${where}.perWindow must be a whole number of at least 1 (got ${g.perWindow})`);
    return { name: g.name, routes: [...g.routes], burst: g.burst, perWindow: g.perWindow, windowSec };
  });
}

/** A limiter per grouped route (one per group, shared by its routes), of the tenant's model. */
export function createGroupLimiters(
  groups: readonly RateLimitGroup[],
  model: string,
  now: () => number,
): Map<string, Limiter> {
  const byRoute = new Map<string, Limiter>();
  for (const g of groups) {
    const limiter =
      model === 'window'
        ? new WindowBucket({ perWindow: g.perWindow, burst: g.burst, windowMs: g.windowSec * 1000 }, now)
        : new RateLimiter(g.perWindow / g.windowSec, g.burst, now);
    for (const route of g.routes) byRoute.set(route, limiter);
  }
  return byRoute;
}
