/**
 * createApiClient: one call path, `call(descriptor, params, body)`, for every
 * operation the kind modules describe (src/resources), over one shared
 * transport, token source and pacer. Expected statuses are outcomes (409 on
 * create = present, 404 on delete = gone); everything else that is not a 2xx
 * throws an ApiError. The named methods are thin conveniences over `call`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { cachingTokenSource, staticTokenSource, type TokenSource } from './auth.js';
import { call, type CallContext, type CallSpec } from './caller.js';
import type { WaitCause } from './ceilings.js';
import { ApiConfigError, errorInfoFromBody } from './errors.js';
import { PacerRoutes } from './pacer-routes.js';
import { proxyFor, proxySecrets } from './proxy.js';
import { encodeSegment } from './paths.js';
import { Reachability } from './reach.js';
import { createRedactor, type Redactor } from './redact.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { parseCreated, parseToken } from './responses.js';
import { createAgent } from './transport.js';
import {
  operationsFor,
  rateLimitPolicy,
  tokenExchangeProfile,
  userPermission,
  type OperationDescriptor,
} from '../resources/index.js';
import type {
  Credentials,
  ApiClient,
  ApiClientOptions,
  ApiErrorInfo,
  ApiStats,
  PermissionItem,
  Query,
  RateLimitPolicy,
  RateLimitPolicyCreate,
  TokenExchangeProfile,
  TokenExchangeProfileCreate,
  WaitKind,
} from './types.js';
import { joined, plainName, setting, words, type Wording } from '../resources/settings.js';

/** What to say when a static token is refused: where it came from, and the client credentials it overrode. */
function staticTokenHint(credentials: Credentials): Wording {
  const head = words`The access token was refused (expired, or issued for another tenant or audience): provide a new one (TENANTFORM_TOKEN, AUTH0_ACCESS_TOKEN or ${setting('tokenFile')})`;
  if (credentials.kind === 'token' && credentials.unused) {
    const drop = credentials.source
      ? words`unset ${credentials.source}`
      : words`drop ${setting('tokenFile')}`;
    return joined(
      head,
      `; or, to use the client credentials in ${credentials.unused}, which a token overrides, `,
      drop,
    );
  }
  return joined(
    head,
    ', or use client credentials (TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET, with no token set)',
  );
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, signal ? { signal } : {});

function retryPolicy(options: ApiClientOptions): RetryPolicy {
  const r = options.retry ?? {};
  return {
    maxAttempts: Math.max(1, Math.floor(r.maxAttempts ?? DEFAULT_RETRY.maxAttempts)),
    baseDelayMs: Math.max(0, r.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs),
    maxDelayMs: Math.max(0, r.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs),
    rateLimitTimeoutMs: Math.max(0, r.rateLimitTimeoutMs ?? DEFAULT_RETRY.rateLimitTimeoutMs),
  };
}

/** The share of the tenant's rate the pacer may use: a fraction in (0, 1], or undefined for all of it. */
function rateShare(share: number | undefined): number | undefined {
  if (share === undefined) return undefined;
  if (!(share > 0 && share <= 1)) {
    throw new ApiConfigError(`the share of the tenant's rate must be above 0 and at most 1 (got ${share})`);
  }
  return share;
}

/** A wait's cause in words; the CLI names the flag behind a ceiling (its kind). A share of 0.01 % stays 0.01 %. */
export function describeWait(cause: WaitCause): string {
  if (cause.kind === 'max-rps') return `at most ${cause.rate} requests per second`;
  if (cause.kind === 'max-rate')
    return `${Number((cause.share * 100).toPrecision(6))}% of the tenant's sustained rate`;
  return cause.reason;
}

/** The client's own agent, unless the caller hands in a dispatcher (tests: MockAgent). */
function ownAgentFor(
  options: ApiClientOptions,
  requestTimeoutMs: number,
): ReturnType<typeof createAgent> | null {
  if (options.dispatcher) return null;
  return createAgent(
    {
      parallelism: options.parallelism ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      requestTimeoutMs,
    },
    options.proxy,
  );
}

/** A token for every call: the static one, or client credentials exchanged at the token endpoint (cached). */
function tokenSourceFor(
  ctx: CallContext,
  options: ApiClientOptions,
  redactor: Redactor,
  now: () => number,
): TokenSource {
  const { target, credentials } = options;
  if (credentials.kind === 'token') return staticTokenSource(credentials.token);
  const tokenCtx: CallContext = { ...ctx, tokens: null };
  const tokenPath = new URL(target.tokenUrl).pathname;
  return cachingTokenSource(async () => {
    const res = await call(tokenCtx, {
      operation: 'fetchToken',
      method: 'POST',
      path: tokenPath,
      paced: false,
      body: {
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        audience: target.audience,
      },
      hints: {
        401: `The token endpoint refused the client credentials; check the client id and secret`,
        403: `The token endpoint refused the client credentials; check the client may request audience ${target.audience}`,
      },
    });
    const token = parseToken(res.body, tokenPath);
    redactor.add(token.accessToken);
    return token;
  }, now);
}

/** The request path of an operation: its template with each parameter encoded as one segment, and the query. */
function operationPath(
  basePath: string,
  op: OperationDescriptor,
  params: Readonly<Record<string, string>>,
  query?: Query,
): string {
  const path = op.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) =>
    encodeSegment(params[name] ?? '', op.params[name] ?? name),
  );
  const search = query
    ? new URLSearchParams(
        Object.entries(query).flatMap(([k, v]): [string, string][] =>
          typeof v === 'object' ? v.map((one) => [k, one]) : [[k, String(v)]],
        ),
      ).toString()
    : '';
  return basePath + path + (search ? `?${search}` : '');
}

/**
 * Any operation of any kind: the path from the descriptor's template with
 * each parameter percent-encoded as one segment, its scope named in a 403,
 * its expected statuses (409, 404) returned as outcomes, and a success body
 * checked against its response schema.
 */
function operationCaller(ctx: CallContext, basePath: string): ApiClient['call'] {
  return async (op, params, body, query) => {
    const spec: CallSpec = {
      operation: op.name,
      method: op.method,
      path: operationPath(basePath, op, params, query),
      ...(body === undefined ? {} : { body }),
      accept: Object.keys(op.outcomes).map(Number),
      scope: op.scope,
    };
    const res = await call(ctx, spec);
    const expected = op.outcomes[res.status];
    if (expected) {
      return {
        outcome: expected,
        status: res.status,
        error: errorInfoFromBody(res.status, res.body, ctx.redactor.redact),
      };
    }
    const value = op.response ? parseCreated(op.response, res, spec) : undefined;
    return { outcome: 'done', status: res.status, body: value };
  };
}

/** The named methods: one-line conveniences over `call`. */
function namedMethods(
  callOperation: ApiClient['call'],
): Pick<
  ApiClient,
  'createRateLimitPolicy' | 'deleteRateLimitPolicy' | 'assignUserPermissions' | 'createTokenExchangeProfile'
> {
  return {
    async createRateLimitPolicy(body: RateLimitPolicyCreate) {
      const r = await callOperation(operationsFor(rateLimitPolicy, 'spec').create, {}, body);
      if (r.outcome === 'done') return { outcome: 'created', policy: r.body as RateLimitPolicy };
      return { outcome: 'present', error: (r as { error: ApiErrorInfo }).error };
    },

    async deleteRateLimitPolicy(id: string) {
      const r = await callOperation(operationsFor(rateLimitPolicy, 'spec').delete!, { id });
      return r.outcome === 'gone' ? { outcome: 'gone' } : { outcome: 'deleted' };
    },

    async assignUserPermissions(userId: string, permissions: PermissionItem[]) {
      await callOperation(operationsFor(userPermission, 'spec').create, { user_id: userId }, { permissions });
      return { outcome: 'assigned' };
    },

    async createTokenExchangeProfile(body: TokenExchangeProfileCreate) {
      const r = await callOperation(operationsFor(tokenExchangeProfile, 'spec').create, {}, body);
      if (r.outcome === 'done') return { outcome: 'created', profile: r.body as TokenExchangeProfile };
      return { outcome: 'present', error: (r as { error: ApiErrorInfo }).error };
    },
  };
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { target, credentials } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const policy = retryPolicy(options);
  const share = rateShare(options.share);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const ownAgent = ownAgentFor(options, requestTimeoutMs);
  const dispatcher = options.dispatcher ?? ownAgent!;
  let closed = false;
  const redactor = createRedactor([
    credentials.kind === 'token' ? credentials.token : credentials.clientSecret,
    ...proxySecrets(options.proxy),
  ]);
  const stats: ApiStats = { requests: 0, retries: 0, status429: 0, retried429: 0, waitsMs: 0 };
  const logger = options.logger;
  // Without a logger no debug line is even built (the caller's optional calls skip their arguments).
  const log = logger ? (line: string): void => logger(redactor.redact(line)) : undefined;
  const noteWait = (ms: number, reason: string, kind: WaitKind): void => {
    stats.waitsMs += ms;
    log?.(`wait ${ms}ms: ${reason}`);
    options.onWait?.(ms, reason, kind);
  };
  const via = options.dispatcher ? undefined : proxyFor(options.proxy, target.origin);
  const reach = new Reachability(target.baseUrl, policy.rateLimitTimeoutMs, redactor.redact, via);
  if (via) log?.(`proxy: ${target.origin} through ${via}`);
  const pacer = new PacerRoutes({
    now,
    sleep,
    random,
    maxDelayMs: policy.maxDelayMs,
    onWait: (ms, cause) => noteWait(ms, describeWait(cause), cause.kind),
    onBlocked: (ms) => (stats.waitsMs += ms),
    deadline: () => reach.deadline,
    onDeadline: () => reach.expire(),
    ...(options.maxRps !== undefined ? { maxRps: options.maxRps } : {}),
    ...(share !== undefined ? { share } : {}),
  });

  const ctx: CallContext = {
    dispatcher,
    origin: target.origin,
    pacer,
    policy,
    now,
    sleep,
    random,
    requestTimeoutMs,
    abortInFlight: options.abortInFlight ?? false,
    redactor,
    ...(log ? { log } : {}),
    noteWait,
    names: options.settingNames ?? plainName,
    reach,
    stats,
    tokens: null,
    unauthorizedHint: staticTokenHint(credentials),
    ...(options.signal ? { signal: options.signal } : {}),
    waitSignal: options.signal ? AbortSignal.any([options.signal, reach.halt]) : reach.halt,
  };
  ctx.tokens = tokenSourceFor(ctx, options, redactor, now);
  const callOperation = operationCaller(ctx, new URL(target.baseUrl).pathname.replace(/\/+$/, ''));

  return {
    call: callOperation,
    ...namedMethods(callOperation),
    stats: () => ({ ...stats }),
    async close() {
      if (!ownAgent || closed) return;
      closed = true;
      await ownAgent.close();
    },
  };
}
