/**
 * The admin API under /__emulator/, for inspection from tests and scripts:
 *   GET  /__emulator/state  → the snapshot (policies, permissions, profiles)
 *   POST /__emulator/reset  → 204, the tenant is emptied
 *   GET  /__emulator/stats  → request counts by status and route
 * Every call needs the header x-emulator-admin-key with the instance's admin
 * key (random per start). Tenant bearer tokens are never accepted here: the
 * answer without the right key is 401, whatever else is sent. The admin API
 * sees no latency, faults or rate limit and is not counted in the stats.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors.js';
import { send } from './http-io.js';
import type { EmulatorSnapshot, EmulatorStats } from './types.js';

export const ADMIN_PREFIX = '/__emulator';
export const ADMIN_KEY_HEADER = 'x-emulator-admin-key';

export interface AdminTarget {
  adminKey: string;
  snapshot(): EmulatorSnapshot;
  reset(): void;
  stats(): EmulatorStats;
}

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

function keyMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function answer(req: IncomingMessage, path: string, target: AdminTarget): { status: number; body?: unknown } {
  if (!keyMatches(req.headers[ADMIN_KEY_HEADER], target.adminKey)) {
    const hint = req.headers.authorization ? ' (tenant tokens are not accepted here)' : '';
    throw new HttpError(
      401,
      `The admin API needs the ${ADMIN_KEY_HEADER} header${hint}`,
      'invalid_admin_key',
    );
  }
  const routes: Record<string, { method: string; run: () => { status: number; body?: unknown } }> = {
    [`${ADMIN_PREFIX}/state`]: { method: 'GET', run: () => ({ status: 200, body: target.snapshot() }) },
    [`${ADMIN_PREFIX}/stats`]: { method: 'GET', run: () => ({ status: 200, body: target.stats() }) },
    [`${ADMIN_PREFIX}/reset`]: {
      method: 'POST',
      run: () => {
        target.reset();
        return { status: 204 };
      },
    },
  };
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  if (!route) throw new HttpError(404, `Not found: ${req.method ?? ''} ${path}`, 'not_found');
  if (req.method !== route.method) {
    throw new HttpError(
      405,
      `Method ${req.method ?? ''} is not allowed here; allowed: ${route.method}`,
      'method_not_allowed',
      {
        Allow: route.method,
      },
    );
  }
  return route.run();
}

/** Serves one admin request; the request body, if any, is ignored. */
export function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  target: AdminTarget,
): void {
  req.resume();
  const headers = { 'Cache-Control': 'no-store' };
  try {
    const { status, body } = answer(req, path, target);
    send(res, status, body, headers);
  } catch (err) {
    const error = err instanceof HttpError ? err : new HttpError(500, 'Internal error', 'internal_error');
    send(res, error.status, error.body(), { ...headers, ...error.headers });
  }
}
