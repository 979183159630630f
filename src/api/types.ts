/**
 * Public shapes of the API client: request and response bodies (generated
 * from the schemas), the target and credentials, the client's options and
 * methods.
 */
import type { Dispatcher } from 'undici';
import type * as SchemaTypes from '../schemas/types.js';
import type { ExpectedOutcome, ListQuery, OperationDescriptor, SettingNames } from '../resources/index.js';

/** Body types, generated from schemas/ (see src/schemas/types.ts). */
export type RateLimitPolicyConfiguration = SchemaTypes.RateLimitPolicyConfiguration;
export type RateLimitAction = RateLimitPolicyConfiguration['action'];
/** Body of POST /rate-limit-policies. */
export type RateLimitPolicyCreate = SchemaTypes.CreateRateLimitPolicyRequest;
/** A rate limit policy as POST /rate-limit-policies returns it. */
export type RateLimitPolicy = SchemaTypes.RateLimitPolicy;
/** One element of the `permissions` array of POST /users/{id}/permissions. */
export type PermissionItem = SchemaTypes.PermissionRequestItem;
/** Body of POST /token-exchange-profiles. */
export type TokenExchangeProfileCreate = SchemaTypes.CreateTokenExchangeProfileRequest;
/** A token exchange profile as POST /token-exchange-profiles returns it (only `id` is guaranteed). */
export type TokenExchangeProfile = SchemaTypes.TokenExchangeProfile;

/** The fields of an error body the client keeps: never headers, never other body fields. */
export type ApiErrorInfo = {
  status: number;
  /** Short reason, e.g. "Conflict". */
  error: string;
  /** The server's message (with known secrets masked). */
  message: string;
  errorCode?: string;
};

/** Where requests go. */
export interface Target {
  /** https://DOMAIN/api/v2 (no trailing slash). */
  baseUrl: string;
  /** https://DOMAIN */
  origin: string;
  /** origin + /oauth/token */
  tokenUrl: string;
  /** Audience asked for with client credentials; origin + /api/v2/ unless overridden. */
  audience: string;
}

export type Credentials =
  | {
      kind: 'token';
      token: string;
      /** The variable it came from (absent: the token file). */
      source?: string;
      /** Client credential variables also set, which the token overrides ("TENANTFORM_CLIENT_ID and …"). */
      unused?: string;
    }
  | { kind: 'client_credentials'; clientId: string; clientSecret: string };

export interface RetryOptions {
  /**
   * Attempts per request that end in 408, 5xx or a network error, the first
   * included. Default 6. A 429 is retried without a cap: see rateLimitTimeoutMs.
   */
  maxAttempts?: number;
  /** First backoff step for 408/5xx/network errors. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap on any single wait (backoff, Retry-After, reset). Default 30000 ms. */
  maxDelayMs?: number;
  /**
   * Once the tenant has answered nothing but 429 for this long (on the client's
   * clock), the client sends nothing more and every call ends with
   * API_RATE_LIMITED (the rate-limit timeout). Default 300000 ms (5 minutes).
   */
  rateLimitTimeoutMs?: number;
}

/** The forward proxies the environment names (proxy.ts reads them). */
export interface ProxySettings {
  /** Proxy URL for http:// origins, and the variable it came from. */
  http?: { url: string; from: string };
  /** Proxy URL for https:// origins (HTTPS_PROXY, else HTTP_PROXY's), and the variable it came from. */
  https?: { url: string; from: string };
  /** NO_PROXY as given ('' when unset). */
  noProxy: string;
}

export interface ApiClientOptions {
  target: Target;
  credentials: Credentials;
  /** Connections per origin of the built-in undici Agent. Default 10. */
  parallelism?: number;
  /**
   * The forward proxies the environment names (proxyFromEnv): the built-in
   * dispatcher then goes through them, and their credentials are masked in
   * every message. Ignored with `dispatcher`.
   */
  proxy?: ProxySettings;
  /** Replaces the built-in Agent (tests). The client does not close an injected dispatcher. */
  dispatcher?: Dispatcher;
  /** Clock in milliseconds since the epoch. Default Date.now. */
  now?: () => number;
  /** Waits `ms`; rejects when `signal` aborts. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for jitter. Default Math.random. */
  random?: () => number;
  /** User ceiling on requests per second (fractions allowed). */
  maxRps?: number;
  /**
   * Share of the tenant's sustained rate, as the pacer learns it, that this
   * client may use: a fraction in (0, 1]. Default: all of it.
   */
  share?: number;
  retry?: RetryOptions;
  /** TCP/TLS connect timeout of the built-in Agent. Default 10000 ms. */
  connectTimeoutMs?: number;
  /** Headers and body timeout of every request. Default 30000 ms. */
  requestTimeoutMs?: number;
  /** Receives one line per attempt and per wait (debug output). Lines never carry secrets. */
  logger?: (line: string) => void;
  /** Told about every wait the client makes (pacing, retry delays), for progress output. */
  onWait?: (ms: number, reason: string, kind: WaitKind) => void;
  /** How a wait's reason names a setting (src/cli: by its flag); neutral names by default. */
  settingNames?: SettingNames;
  /** Stops waits and new attempts; the call then fails with API_ABORTED. */
  signal?: AbortSignal;
  /**
   * Also cancel attempts already sent when `signal` aborts. Default false: a sent
   * request finishes (bounded by requestTimeoutMs) so its outcome can be recorded.
   */
  abortInFlight?: boolean;
}

/**
 * What a wait is for: the tenant's rate limit (pacing, a 429), a ceiling of
 * the user's (requests per second; a share of the tenant's rate: the CLI
 * words them with its flags), a server error answer (5xx, 408) or a failed
 * connection before a retry.
 */
export type WaitKind = 'rate-limit' | 'max-rps' | 'max-rate' | 'server-error' | 'connection';

export interface ApiStats {
  /** HTTP requests sent, token requests included. */
  requests: number;
  /** Attempts that repeated an earlier one (429, 408, 5xx, network, 401 refresh). */
  retries: number;
  /** Answers 429 (rate limited). */
  status429: number;
  /** Of those, the ones whose request was sent again (all but those the rate-limit timeout ended). */
  retried429: number;
  /** Total milliseconds spent waiting (pacing and retry delays). */
  waitsMs: number;
}

export type CreatePolicyResult =
  { outcome: 'created'; policy: RateLimitPolicy } | { outcome: 'present'; error: ApiErrorInfo };

export type DeletePolicyResult = { outcome: 'deleted' } | { outcome: 'gone' };

export type AssignPermissionsResult = { outcome: 'assigned' };

export type CreateProfileResult =
  { outcome: 'created'; profile: TokenExchangeProfile } | { outcome: 'present'; error: ApiErrorInfo };

/** What `call` answers: a success (body checked and parsed when the operation has a response schema) or an expected status. */
export type CallResult =
  | { outcome: 'done'; status: number; body: unknown }
  | { outcome: ExpectedOutcome; status: number; error: ApiErrorInfo };

/** Query string parameters of a request (list operations: paging and filters); a list repeats the parameter. */
export type Query = ListQuery;

export interface ApiClient {
  /** Sends one operation of a kind's table; `params` fills the path template, `query` the query string. */
  call(
    op: OperationDescriptor,
    params: Readonly<Record<string, string>>,
    body?: unknown,
    query?: Query,
  ): Promise<CallResult>;
  /** 201/2xx → created; 409 → present (a policy with the same identity exists). */
  createRateLimitPolicy(body: RateLimitPolicyCreate): Promise<CreatePolicyResult>;
  /** 2xx → deleted; 404 → gone. */
  deleteRateLimitPolicy(id: string): Promise<DeletePolicyResult>;
  assignUserPermissions(userId: string, permissions: PermissionItem[]): Promise<AssignPermissionsResult>;
  /** 2xx → created; 409 → present. */
  createTokenExchangeProfile(body: TokenExchangeProfileCreate): Promise<CreateProfileResult>;
  stats(): ApiStats;
  /** Closes the built-in Agent (not an injected dispatcher). */
  close(): Promise<void>;
}
