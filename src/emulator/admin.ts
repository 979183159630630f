/**
 * The admin API under /__emulator/, for inspection from tests and scripts:
 *   GET  /__emulator/state  → the snapshot (policies, permissions, profiles)
 *   PUT  /__emulator/state  → 200 and the new snapshot: the tenant now holds
 *                             exactly the given state, as if someone else had
 *                             made it so (seed.ts)
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
import { parseBody, readBody, send } from './http-io.js';
import type { EmulatorSnapshot, EmulatorStats } from './types.js';

export const ADMIN_PREFIX = '/__emulator';
export const ADMIN_KEY_HEADER = 'x-emulator-admin-key';

/** Largest admin request body: a seeded state of many thousand resources. */
const MAX_ADMIN_BODY = 64 * 1024 * 1024;

export interface AdminTarget {
  adminKey: string;
  snapshot(): EmulatorSnapshot;
  /** Replaces the tenant with a seed document (throws a 400 HttpError when it is unusable). */
  replaceState(doc: unknown): EmulatorSnapshot;
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

type AdminReply = { status: number; body?: unknown };

async function answer(req: IncomingMessage, path: string, target: AdminTarget): Promise<AdminReply> {
  if (!keyMatches(req.headers[ADMIN_KEY_HEADER], target.adminKey)) {
    const hint = req.headers.authorization ? ' (tenant tokens are not accepted here)' : '';
    throw new HttpError(
      401,
      `The admin API needs the ${ADMIN_KEY_HEADER} header${hint}`,
      'invalid_admin_key',
    );
  }
  const routes: Record<string, Record<string, () => AdminReply | Promise<AdminReply>>> = {
    [`${ADMIN_PREFIX}/state`]: {
      GET: () => ({ status: 200, body: target.snapshot() }),
      PUT: async () => {
        const body = await readBody(req, MAX_ADMIN_BODY);
        if (body === null) return { status: 400 };
        if (body instanceof HttpError) throw body;
        return {
          status: 200,
          body: target.replaceState(parseBody(req.headers['content-type'], body, ['json'])),
        };
      },
    },
    [`${ADMIN_PREFIX}/stats`]: { GET: () => ({ status: 200, body: target.stats() }) },
    [`${ADMIN_PREFIX}/reset`]: {
      POST: () => {
        target.reset();
        return { status: 204 };
      },
    },
  };
  const methods = Object.hasOwn(routes, path) ? routes[path]! : undefined;
  if (!methods) throw new HttpError(404, `Not found: ${req.method ?? ''} ${path}`, 'not_found');
  const run = Object.hasOwn(methods, req.method ?? '') ? methods[req.method!] : undefined;
  if (!run) {
    const allow = Object.keys(methods).join(', ');
    throw new HttpError(
      405,
      `Method ${req.method ?? ''} is not allowed here; allowed: ${allow}`,
      'method_not_allowed',
      {
        Allow: allow,
      },
    );
  }
  return run();
}

/** Serves one admin request; a body is read only where the route takes one. */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  target: AdminTarget,
): Promise<void> {
  const headers = { 'Cache-Control': 'no-store' };
  try {
    const { status, body } = await answer(req, path, target);
    if (!req.complete) req.resume();
    send(res, status, body, headers);
  } catch (err) {
    if (!req.complete) req.resume();
    const error = err instanceof HttpError ? err : new HttpError(500, 'Internal error', 'internal_error');
    send(res, error.status, error.body(), { ...headers, ...error.headers });
  }
}
