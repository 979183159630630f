/**
 * A second rate-limited tenant, written from the service's public docs alone
 * (/work/shared/spec/management-api-beyond-spec.md, "Rate limits of the real
 * service") and sharing no code with src/emulator, so that a pacer tuned to
 * the emulator's arithmetic fails here when it relies on more than the docs
 * promise. The docs' sentences, one by one:
 *
 * - "The bucket holds at most the burst (X-RateLimit-Limit)."
 * - "the sustained rate is added in whole steps at the top of each window …
 *   never above the burst."
 * - "X-RateLimit-Remaining: requests left until tokens are next added."
 * - "X-RateLimit-Reset: the Unix second at which tokens are next added."
 * - "A 429 body reads {statusCode: 429, error: Too Many Requests, message:
 *   Global limit has been reached, errorCode: too_many_requests}."
 * - Limits are per tenant, shared by all its clients; an endpoint may have its
 *   own (a group of routes with its own bucket: `groups`).
 *
 * The Date header, which the docs leave to HTTP: 'node' (Node's own http
 * server stamps it: this machine's clock, to the second, refreshed by a timer
 * once a second), 'exact' (the limiter's second at each answer, from a front
 * end `frontEndOffsetMs` off the limiter's clock) or 'absent'.
 *
 * It answers what an apply of policies, permissions and profiles sends
 * (POST /api/v2/rate-limit-policies, /users/{id}/permissions,
 * /token-exchange-profiles) with what the spec shows, accepts any bearer
 * token, and counts requests as the bench reads the emulator's stats.
 * Plain JavaScript so that the bench (bench/*.mjs) and the tests both import it.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

/** Docs: the 429 body. */
const TOO_MANY = {
  statusCode: 429,
  error: 'Too Many Requests',
  message: 'Global limit has been reached',
  errorCode: 'too_many_requests',
};

/** One bucket: the burst, a step added at the top of each window, the window in ms. */
export class DocBucket {
  constructor({ burst, perWindow, windowSec = 1 }) {
    this.limit = burst;
    this.step = perWindow;
    this.windowMs = windowSec * 1000;
    this.left = burst;
    this.nextAddition = undefined;
  }

  /** One request at limiter time `t`: whether it may go, and the headers to send. */
  admit(t) {
    if (this.nextAddition === undefined)
      this.nextAddition = (Math.floor(t / this.windowMs) + 1) * this.windowMs;
    if (t >= this.nextAddition) {
      const tops = Math.floor((t - this.nextAddition) / this.windowMs) + 1;
      this.left = Math.min(this.limit, this.left + tops * this.step);
      this.nextAddition += tops * this.windowMs;
    }
    const ok = this.left >= 1;
    if (ok) this.left -= 1;
    return {
      ok,
      headers: {
        'X-RateLimit-Limit': String(this.limit),
        'X-RateLimit-Remaining': String(this.left),
        'X-RateLimit-Reset': String(this.nextAddition / 1000),
      },
    };
  }
}

const ROUTES = [
  { re: /^\/api\/v2\/rate-limit-policies$/, label: 'POST /api/v2/rate-limit-policies', kind: 'policy' },
  {
    re: /^\/api\/v2\/users\/[^/]+\/permissions$/,
    label: 'POST /api/v2/users/{id}/permissions',
    kind: 'permission',
  },
  {
    re: /^\/api\/v2\/token-exchange-profiles$/,
    label: 'POST /api/v2/token-exchange-profiles',
    kind: 'profile',
  },
];

function created(kind, request, nowIso) {
  if (kind === 'permission') return undefined;
  const id = `${kind === 'policy' ? 'rlp' : 'tep'}_${randomBytes(8).toString('hex')}`;
  return { ...request, id, created_at: nowIso, updated_at: nowIso };
}

/**
 * Starts the server on 127.0.0.1. `limit`: { burst, perWindow, windowSec }.
 * `groups`: [{ name, limit, routes: [label, …] }]: those routes draw on a
 * bucket of their own; every other route on the tenant's (`limit`).
 * `now`: the limiter's clock (default Date.now).
 */
export async function startDocLimiter({
  limit,
  groups = [],
  date = 'node',
  frontEndOffsetMs = 0,
  now = Date.now,
} = {}) {
  if (date === 'node' && frontEndOffsetMs !== 0) {
    throw new Error("frontEndOffsetMs needs date 'exact': Node stamps its own clock");
  }
  const tenant = new DocBucket(limit);
  const byRoute = new Map(
    groups.flatMap((g) => g.routes.map((r) => [r, { name: g.name, bucket: new DocBucket(g.limit) }])),
  );
  const counts = { requests: 0, byStatus: {}, byRoute: {}, byGroup: {} };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const t = now();
      const path = (req.url ?? '/').split('?')[0];
      const route = req.method === 'POST' ? ROUTES.find((r) => r.re.test(path)) : undefined;
      const group = route ? byRoute.get(route.label) : undefined;
      const bucket = group?.bucket ?? tenant;
      const groupName = group?.name ?? 'tenant';
      const { ok, headers } = bucket.admit(t);
      let status = 429;
      let body = TOO_MANY;
      if (!route) [status, body] = [404, { statusCode: 404, error: 'Not Found', message: 'Not Found' }];
      else if (ok) {
        status = 201;
        body = created(
          route.kind,
          JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          new Date(t).toISOString(),
        );
      }
      counts.requests += 1;
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      const label = route?.label ?? 'unmatched';
      counts.byRoute[label] = (counts.byRoute[label] ?? 0) + 1;
      const g = (counts.byGroup[groupName] ??= { requests: 0, byStatus: {} });
      g.requests += 1;
      g.byStatus[status] = (g.byStatus[status] ?? 0) + 1;
      if (status !== 429) {
        g.firstRequestAt ??= t;
        g.lastRequestAt = t;
      }
      counts.firstRequestAt ??= t;
      counts.lastRequestAt = t;
      if (date === 'absent') res.sendDate = false;
      else if (date === 'exact') headers.Date = new Date(t + frontEndOffsetMs).toUTCString();
      const text = body === undefined ? '' : JSON.stringify(body);
      res.writeHead(status, {
        ...headers,
        ...(text ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
        'Content-Length': String(Buffer.byteLength(text)),
      });
      res.end(text);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/api/v2`,
    token: 'doc-limiter-token',
    rateLimit: { burst: limit.burst, perWindow: limit.perWindow, windowSec: limit.windowSec ?? 1 },
    stats: () => structuredClone(counts),
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
