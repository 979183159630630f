/**
 * One request, start to finish. Order for everything outside /__emulator/:
 * read the body (cap → 413) → latency → rate limit (the tenant's bucket,
 * shared by every client with a valid token, or with scope 'client' the
 * bearer token's client's; requests without a valid token, the token
 * endpoint's included, share one bucket of their own) → faults (not on the token endpoint unless
 * faultsOnToken) → route (404/405) → the operation or the token endpoint.
 *
 * Faults: "reset" sends a TCP reset before anything is processed; "error"
 * answers 500 or 503 without processing; "lost" processes the request (the
 * change is applied) and then closes the connection before any response byte.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { handleAdmin, isAdminPath, type AdminTarget } from './admin.js';
import { runOperation } from './api.js';
import type { Authority, Identification } from './auth.js';
import { badRequest, HttpError } from './errors.js';
import { drawFault, drawLatency, hasFaults } from './faults.js';
import { parseBody, queryOf, rawPath, readBody, send } from './http-io.js';
import { rateLimitHeaders, unlimitedDecision, type Limiter } from './rate-limit.js';
import { matchRoute, type RouteDef } from './router.js';
import type { StatsRecorder } from './stats.js';
import type { TenantStore } from './store.js';
import type { FaultOptions } from './types.js';

/** Bucket key shared by requests that carry no valid token. */
export const ANONYMOUS_BUCKET = '\u0000anonymous';
/** Bucket key of every client with a valid token when the limit is per tenant. */
export const TENANT_BUCKET = '\u0000tenant';

export interface PipelineContext {
  store: TenantStore;
  authority: Authority;
  /** The tenant's buckets; null = no limit (the headers still say how much is left: plenty). */
  limiter: Limiter | null;
  /** Routes (by label) that draw on a group's bucket instead of the tenant's. */
  groupLimiters: ReadonlyMap<string, Limiter>;
  /** The tenant's clock: the limiter's and the data's. */
  now: () => number;
  /** The Date header's value for an answer now (date-header.ts), or undefined for none. */
  date: () => string | undefined;
  /** 'tenant': one bucket for all clients with a valid token; 'client': one each. */
  limitScope: 'tenant' | 'client';
  retryAfter: boolean;
  faults: FaultOptions | undefined;
  faultsOnToken: boolean;
  latencyMs: number;
  latencyJitterMs: number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
  maxBodyBytes: number;
  admin: AdminTarget;
  stats: StatsRecorder;
  /** The routes served (those of the emulator's API profile). */
  routes: readonly RouteDef[];
  /** Audience values the token endpoint accepts, given the request's Host header. */
  audiences: (host: string | undefined) => string[];
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

function errorReply(err: unknown): Reply {
  const error = err instanceof HttpError ? err : new HttpError(500, 'Internal error', 'internal_error');
  return { status: error.status, body: error.body(), headers: error.headers };
}

function tokenParams(contentType: string | undefined, body: Buffer): Record<string, unknown> {
  const params = parseBody(contentType, body, ['json', 'form']);
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw badRequest('The token request must be a JSON object or a form', 'invalid_request');
  }
  return params as Record<string, unknown>;
}

function drop(req: IncomingMessage, how: 'reset' | 'lost'): void {
  if (how === 'reset') req.socket.resetAndDestroy();
  else req.socket.destroy();
}

type Match = ReturnType<typeof matchRoute>;

/** The rate limit's answer for this request: its group's bucket or the tenant's, keyed by scope and token. */
function rateDecision(ctx: PipelineContext, match: Match, identification: Identification | undefined) {
  const known =
    identification && 'principal' in identification ? identification.principal.clientId : undefined;
  const limiter = (match.kind === 'match' && ctx.groupLimiters.get(match.label)) || ctx.limiter;
  return limiter
    ? limiter.take(
        known === undefined ? ANONYMOUS_BUCKET : ctx.limitScope === 'tenant' ? TENANT_BUCKET : known,
      )
    : unlimitedDecision(ctx.now());
}

/** What the route answers: a token, or the operation run on the tenant; a thrown HttpError as its reply. */
function routeReply(
  ctx: PipelineContext,
  req: IncomingMessage,
  match: Match,
  identification: Identification | undefined,
  body: Buffer,
): Reply {
  try {
    if (match.kind === 'error') throw match.error;
    if (match.route === 'token') {
      const params = tokenParams(req.headers['content-type'], body);
      const token = ctx.authority.grant(params, req.headers.authorization, ctx.audiences(req.headers.host));
      return { status: 200, body: token, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' } };
    }
    return runOperation(
      {
        route: match.def.operation!,
        params: match.params,
        identification: identification ?? ctx.authority.identify(undefined),
        contentType: req.headers['content-type'],
        body,
        query: queryOf(req.url),
      },
      ctx.store,
      ctx.authority,
      ctx.now(),
    );
  } catch (err) {
    return errorReply(err);
  }
}

/** The fault drawn for this request: none, one answered or dropped now, or a lost answer after processing. */
function drawnFault(ctx: PipelineContext, isToken: boolean): { now?: Reply | 'reset'; lost: boolean } {
  if (!hasFaults(ctx.faults) || (isToken && !ctx.faultsOnToken)) return { lost: false };
  const fault = drawFault(ctx.faults!, ctx.random);
  if (fault.kind === 'reset') return { now: 'reset', lost: false };
  if (fault.kind === 'error') {
    const message =
      fault.status === 500 ? 'Internal error (injected fault)' : 'Service unavailable (injected fault)';
    return { now: errorReply(new HttpError(fault.status, message, 'injected_fault')), lost: false };
  }
  return { lost: fault.kind === 'lost' };
}

async function handle(ctx: PipelineContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = rawPath(req.url);
  if (isAdminPath(path)) return handleAdmin(req, res, path, ctx.admin);
  const method = req.method ?? 'GET';
  const match = matchRoute(method, path, ctx.routes);
  const isToken = match.kind === 'match' && match.route === 'token';
  ctx.stats.received(match.kind === 'match' ? match.label : 'unmatched', isToken);
  const body = await readBody(req, ctx.maxBodyBytes);
  if (body === null) return; // the client went away mid-body: nothing to answer, nothing to apply
  const delay = drawLatency(ctx.latencyMs, ctx.latencyJitterMs, ctx.random);
  if (delay > 0) await ctx.sleep(delay);
  if (req.socket.destroyed) return;

  const authorization = req.headers.authorization;
  const identification: Identification | undefined =
    authorization === undefined || isToken ? undefined : ctx.authority.identify(authorization);
  const headers: Record<string, string> = {};
  const reply = (r: Reply) => {
    ctx.stats.outcome(r.status);
    send(res, r.status, r.body, { ...headers, ...r.headers, ...dateHeader(ctx) });
  };

  const decision = rateDecision(ctx, match, identification);
  if (!isToken) ctx.stats.limited(decision.atMs);
  Object.assign(headers, rateLimitHeaders(decision));
  if (!decision.allowed) {
    if (ctx.retryAfter) headers['Retry-After'] = String(decision.retryAfterSec);
    return reply(errorReply(new HttpError(429, 'Global limit has been reached', 'too_many_requests')));
  }
  if (body instanceof HttpError) {
    headers.Connection = 'close';
    return reply(errorReply(body));
  }

  const fault = drawnFault(ctx, isToken);
  if (fault.now === 'reset') {
    ctx.stats.outcome('reset');
    return drop(req, 'reset');
  }
  if (fault.now) return reply(fault.now);
  const result = routeReply(ctx, req, match, identification, body);
  if (fault.lost) {
    ctx.stats.outcome('lost');
    return drop(req, 'lost');
  }
  reply(result);
}

function dateHeader(ctx: PipelineContext): Record<string, string> {
  const date = ctx.date();
  return date === undefined ? {} : { Date: date };
}

export function createRequestHandler(ctx: PipelineContext): RequestListener {
  return (req, res) => {
    // Node would send Date from this machine's clock; the tenant's answers carry its front end's.
    // Set on arrival for every answer (the admin API's too), and again when an API answer is written.
    const date = ctx.date();
    if (date === undefined) res.sendDate = false;
    else res.setHeader('Date', date);
    handle(ctx, req, res).catch((err: unknown) => {
      ctx.stats.outcome(500);
      send(res, 500, errorReply(err instanceof HttpError ? new Error(err.message) : err).body);
    });
  };
}
