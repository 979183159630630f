/**
 * One API call from first attempt to final answer: authorisation, pacing,
 * the attempt itself, the debug line, and the retry decisions (429 after
 * Retry-After or X-RateLimit-Reset, without a cap on attempts; 408, 5xx and
 * network errors after exponential backoff, up to the policy's attempts; one
 * token refresh after a 401). Returns the response when it is a 2xx or a
 * status the operation handles itself; otherwise throws an ApiError.
 *
 * Every call of a client shares a Reachability: once a request finds the
 * tenant unreachable, or the tenant has answered nothing but 429 for the
 * rate-limit timeout, no call sends anything more and calls waiting to send
 * give up at once.
 */
import type { Dispatcher } from 'undici';
import type { HttpMethod } from '../resources/index.js';
import type { TokenSource } from './auth.js';
import { ApiError, codeForStatus, describeInfo, errorInfoFromBody, type ApiErrorCode } from './errors.js';
import type { PacerRoutes } from './pacer-routes.js';
import type { Reachability } from './reach.js';
import type { Redactor } from './redact.js';
import {
  backoffMs,
  classifyFailure,
  CONNECT_ATTEMPTS,
  describeFailure,
  isRetryableStatus,
  readRateHeaders,
  waitAfter429,
  type RetryPolicy,
} from './retry.js';
import { sendOnce, type WireResponse } from './transport.js';
import type { ApiStats, WaitKind } from './types.js';
import { joined, plainText, type SettingNames, type Wording } from '../resources/settings.js';

export interface CallContext {
  dispatcher: Dispatcher;
  origin: string;
  pacer: PacerRoutes;
  policy: RetryPolicy;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  requestTimeoutMs: number;
  /** The user's stop request. */
  signal?: AbortSignal;
  /** Ends waits (token, pacer, retry delays): `signal` or `reach.halt`. */
  waitSignal: AbortSignal;
  /** Pass `signal` to requests already sent, not only to waits. */
  abortInFlight: boolean;
  redactor: Redactor;
  /** Debug sink; receives unredacted lines and must redact them (see client.ts). Absent: no line is built. */
  log?: (line: string) => void;
  /** Records a wait in stats, tells onWait and logs it. */
  noteWait: (ms: number, reason: string, kind: WaitKind) => void;
  reach: Reachability;
  stats: ApiStats;
  tokens: TokenSource | null;
  /** How a wait's reason names a setting (src/cli: by its flag). */
  names: SettingNames;
  /** What to tell the user when the API answers 401 and no fresh token helps. */
  unauthorizedHint: string | Wording;
}

export interface CallSpec {
  operation: string;
  method: HttpMethod;
  /** Full path as sent, ids already encoded. */
  path: string;
  /** JSON body. */
  body?: unknown;
  /** Non-2xx statuses the operation turns into an outcome (409 present, 404 gone). */
  accept?: readonly number[];
  /** Hold the request to the shared pacer. Default true; the token endpoint is not paced. */
  paced?: boolean;
  /** Scope to name in the message of a 403. */
  scope?: string;
  /** Replaces the default hints of 401/403 answers. */
  hints?: Partial<Record<number, string>>;
}

function rateText(res: WireResponse): string {
  const r = readRateHeaders(res.headers);
  if (r.limit === undefined && r.remaining === undefined && r.reset === undefined) return '';
  return ` ratelimit-limit=${r.limit ?? '-'} ratelimit-remaining=${r.remaining ?? '-'} ratelimit-reset=${r.reset ?? '-'}`;
}

function abortedError(spec: CallSpec, attempts: number): ApiError {
  return new ApiError(`${spec.operation}: ${spec.method} ${spec.path} was stopped before it completed`, {
    code: 'API_ABORTED',
    status: 0,
    error: 'Aborted',
    method: spec.method,
    path: spec.path,
    operation: spec.operation,
    retryable: false,
    attempts,
  });
}

function httpError(
  ctx: CallContext,
  spec: CallSpec,
  res: WireResponse,
  attempts: number,
  given?: string | Wording,
): ApiError {
  const info = errorInfoFromBody(res.status, res.body, ctx.redactor.redact);
  const code = codeForStatus(res.status);
  const retryable = res.status === 429 || isRetryableStatus(res.status);
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const hint = typeof given === 'object' ? plainText(given) : given;
  const head = `${spec.operation}: ${spec.method} ${spec.path} answered ${describeInfo(info)}${tries}`;
  const message = ctx.redactor.redact(`${head}${hint ? `. ${hint}` : ''}`);
  // A hint that names settings keeps them as data, for the caller to word.
  const worded =
    typeof given === 'object'
      ? { wording: joined(ctx.redactor.redact(`${head}. `), given), hintWording: given }
      : {};
  const fields = { code, status: res.status, error: info.error, method: spec.method, path: spec.path };
  return new ApiError(message, {
    ...fields,
    ...(info.message ? { serverMessage: info.message } : {}),
    ...(info.errorCode ? { errorCode: info.errorCode } : {}),
    operation: spec.operation,
    retryable,
    attempts,
    ...(hint ? { hint: ctx.redactor.redact(hint) } : {}),
    ...worded,
  });
}

function networkError(
  ctx: CallContext,
  spec: CallSpec,
  failure: string,
  timeout: boolean,
  attempts: number,
): ApiError {
  const code: ApiErrorCode = timeout ? 'API_TIMEOUT' : 'API_NETWORK';
  const what = timeout ? `timed out (${failure})` : `failed without an answer (${failure})`;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  return new ApiError(ctx.redactor.redact(`${spec.operation}: ${spec.method} ${spec.path} ${what}${tries}`), {
    code,
    status: 0,
    error: timeout ? 'Timeout' : 'Network error',
    method: spec.method,
    path: spec.path,
    operation: spec.operation,
    retryable: true,
    attempts,
  });
}

function defaultHint(
  ctx: CallContext,
  spec: CallSpec,
  status: number,
  refreshed: boolean,
): string | Wording | undefined {
  const custom = spec.hints?.[status];
  if (custom !== undefined) return custom;
  if (status === 401) {
    return refreshed
      ? 'A freshly fetched token was refused too; check the client may call this API'
      : ctx.unauthorizedHint;
  }
  if (status === 403) {
    return `The token lacks the scope for this operation${spec.scope ? ` (${spec.scope})` : ''}; grant it to the client`;
  }
  return undefined;
}

function badBodyError(spec: CallSpec, attempts: number): ApiError {
  return new ApiError(
    `${spec.operation}: ${spec.method} ${spec.path} answered with a body too large to read`,
    {
      code: 'API_BAD_RESPONSE',
      status: 0,
      error: 'Bad response',
      method: spec.method,
      path: spec.path,
      operation: spec.operation,
      retryable: false,
      attempts,
    },
  );
}

interface Retry {
  delayMs: number;
  reason: string;
  kind: WaitKind;
}

const WAIT_SOURCE = { 'retry-after': 'Retry-After', reset: 'X-RateLimit-Reset', backoff: 'backoff' } as const;

/** Attempts of one call. */
interface Attempts {
  sent: number;
  /** Those that count against the policy's cap: not 429s, nor the retry with a fresh token. */
  counted: number;
  /** Those answered 429. */
  limited: number;
}

/** After a request failed without an answer: how long until the retry, or the error to throw. */
function afterFailure(ctx: CallContext, spec: CallSpec, err: unknown, tries: Attempts, ms: number): Retry {
  const failure = classifyFailure(err);
  const attempt = tries.sent;
  ctx.log?.(`${spec.method} ${spec.path} error=${failure.code} ${ms}ms attempt=${attempt}`);
  if (failure.kind === 'abort') throw abortedError(spec, attempt);
  if (failure.code === 'BODY_TOO_LARGE') throw badBodyError(spec, attempt);
  if (failure.kind === 'connect') {
    const stopped = ctx.reach.stopped(spec, attempt);
    if (stopped) throw stopped;
    // A proxy that answered and refused answers the same again: no retry.
    if (
      failure.code.startsWith('PROXY_') ||
      tries.counted >= Math.min(CONNECT_ATTEMPTS, ctx.policy.maxAttempts)
    ) {
      throw ctx.reach.lost(failure.code, spec, attempt);
    }
    return {
      delayMs: backoffMs(tries.counted, ctx.random, ctx.policy),
      reason: `${plainText(describeFailure(failure.code), ctx.names)}; retrying`,
      kind: 'connection',
    };
  }
  const retryable = failure.kind === 'retry' || failure.kind === 'timeout';
  if (!retryable || tries.counted >= ctx.policy.maxAttempts) {
    throw networkError(ctx, spec, failure.code, failure.kind === 'timeout', attempt);
  }
  const what = failure.kind === 'timeout' ? `no answer in time, ${failure.code}` : failure.code;
  return {
    delayMs: backoffMs(tries.counted, ctx.random, ctx.policy),
    reason: `${what}; retrying`,
    kind: 'connection',
  };
}

/**
 * After an answer that is neither success nor accepted: how long until the
 * retry, or undefined to give up. A 429 is always retried (the rate-limit
 * timeout, in Reachability, ends a run of them); the call's count of 429s is
 * its backoff step when the answer says nothing about when to come back.
 */
function afterAnswer(
  ctx: CallContext,
  res: WireResponse,
  tries: Attempts,
  paced: boolean,
): Retry | undefined {
  if (res.status === 429) {
    const now = ctx.now();
    // The pacer read this 429 and holds every request (this retry too) until the
    // budget allows: until Retry-After or Reset, or after a backoff when it names neither.
    if (paced) return { delayMs: 0, reason: '', kind: 'rate-limit' };
    const wait = waitAfter429(res.headers, now, tries.limited, ctx.random, ctx.policy);
    return {
      delayMs: wait.ms,
      reason: `rate limited, 429; retrying after ${WAIT_SOURCE[wait.source]}`,
      kind: 'rate-limit',
    };
  }
  if (isRetryableStatus(res.status) && tries.counted < ctx.policy.maxAttempts) {
    const info = errorInfoFromBody(res.status, res.body, ctx.redactor.redact);
    return {
      delayMs: backoffMs(tries.counted, ctx.random, ctx.policy),
      reason: `server error ${info.status} ${info.error}; retrying`,
      kind: 'server-error',
    };
  }
  return undefined;
}

/** Waits for the token and the pacer's turn; the ticket is 0 for an unpaced call. */
async function turnToSend(
  ctx: CallContext,
  spec: CallSpec,
  paced: boolean,
  sent: number,
): Promise<{ token: string | undefined; ticket: number }> {
  let ticket = 0;
  try {
    if (ctx.signal?.aborted) throw ctx.signal.reason;
    const token = ctx.tokens ? await ctx.tokens.get(ctx.waitSignal) : undefined;
    if (paced) ticket = await ctx.pacer.acquire(spec.operation, ctx.waitSignal);
    // The run may have ended before or while this call waited for its turn.
    const stopped = ctx.reach.stopped(spec, sent);
    if (stopped) throw stopped;
    return { token, ticket };
  } catch (err) {
    if (ticket !== 0) ctx.pacer.release(ticket, null);
    if (err instanceof ApiError) throw err;
    throw ctx.reach.stopped(spec, sent) ?? abortedError(spec, sent);
  }
}

/** Sends one API call with retries; see the module comment. */
export async function call(ctx: CallContext, spec: CallSpec): Promise<WireResponse> {
  const paced = spec.paced ?? true;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'tenantform' };
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const tries: Attempts = { sent: 0, counted: 0, limited: 0 };
  let refreshed = false;
  /** The last answer was a 429: the next request sent is its retry. */
  let after429 = false;

  for (;;) {
    const { token, ticket } = await turnToSend(ctx, spec, paced, tries.sent);
    if (after429) ctx.stats.retried429 += 1;
    after429 = false;
    tries.sent += 1;
    tries.counted += 1;
    const attempt = tries.sent;

    const started = ctx.now();
    ctx.stats.requests += 1;
    let res: WireResponse | undefined;
    let retry: Retry | undefined;
    try {
      res = await sendOnce(ctx.dispatcher, {
        origin: ctx.origin,
        method: spec.method,
        path: spec.path,
        headers: token ? { ...headers, authorization: `Bearer ${token}` } : headers,
        ...(body !== undefined ? { body } : {}),
        requestTimeoutMs: ctx.requestTimeoutMs,
        ...(ctx.abortInFlight && ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (err) {
      if (paced) ctx.pacer.release(ticket, null);
      retry = afterFailure(ctx, spec, err, tries, ctx.now() - started);
    }

    if (res) {
      if (paced) ctx.pacer.release(ticket, res.headers, res.status);
      const ms = ctx.now() - started;
      ctx.log?.(`${spec.method} ${spec.path} ${res.status} ${ms}ms attempt=${attempt}${rateText(res)}`);
      const timedOut = ctx.reach.answered(res.status, ctx.now(), spec, attempt);
      if ((res.status >= 200 && res.status < 300) || spec.accept?.includes(res.status)) return res;
      if (res.status === 401 && token !== undefined && !refreshed && ctx.tokens?.invalidate(token)) {
        refreshed = true;
        tries.counted -= 1; // the one retry with a fresh token does not use up an attempt
        ctx.stats.retries += 1;
        continue;
      }
      if (res.status === 429) {
        ctx.stats.status429 += 1;
        tries.counted -= 1; // 429s are retried without a cap
        tries.limited += 1;
        if (timedOut) throw timedOut;
      }
      retry = afterAnswer(ctx, res, tries, paced);
      if (!retry) throw httpError(ctx, spec, res, attempt, defaultHint(ctx, spec, res.status, refreshed));
    }

    ctx.stats.retries += 1;
    after429 = res?.status === 429;
    if (retry!.delayMs <= 0) continue;
    ctx.noteWait(retry!.delayMs, retry!.reason, retry!.kind);
    try {
      await ctx.sleep(retry!.delayMs, ctx.waitSignal);
    } catch {
      throw ctx.reach.stopped(spec, attempt) ?? abortedError(spec, attempt);
    }
  }
}
