/**
 * Public shapes of the emulator: its options, the handle startEmulator returns
 * and the tenant data it holds.
 */
import type { ApiProfile } from '../resources/index.js';
import type { LocalAuthority } from './certificates.js';
import type { EmulatorKind } from './kinds/kind.js';
import type { EmulatorSnapshot } from './kinds/index.js';
import type { DateHeaderMode } from './date-header.js';
import type { RateLimitOptions, RateLimitSettings } from './rate-limit-options.js';

export type { RateLimitOptions } from './rate-limit-options.js';

export type {
  RateLimitAction,
  RateLimitPolicy,
  RateLimitPolicyConfiguration,
} from './kinds/rate-limit-policy.js';
export type { TokenExchangeProfile } from './kinds/token-exchange-profile.js';
export type { PermissionGrant } from './kinds/user-permission.js';
export type { EmulatorSnapshot } from './kinds/index.js';

/** A machine-to-machine client that may ask the token endpoint for a token. */
export interface EmulatorClient {
  clientId: string;
  clientSecret: string;
  /** Scopes the client is granted (a token may ask for a subset). */
  scopes: string[];
  /** A client that is not global gets tokens, but the API answers them with 401 (as the spec says). Default true. */
  global?: boolean;
}

/** Fractions (0..1, summing to at most 1) of API requests that fail on purpose. */
export interface FaultOptions {
  /** Answered 500 or 503 with an error body; the change is not applied. */
  error?: number;
  /** Connection destroyed before the request is processed; the change is not applied. */
  reset?: number;
  /** The change is applied, then the connection is destroyed before any response byte. */
  lost?: number;
}

export interface EmulatorOptions {
  /**
   * Which operations the emulated tenant offers: 'spec' (the default: the
   * spec's four) or 'full' (also those of management-api-beyond-spec.md).
   * Routes of the other profile answer 404, or 405 on a known path.
   */
  api?: ApiProfile;
  /** Address to listen on. Default 127.0.0.1. */
  host?: string;
  /**
   * Serve HTTPS with a certificate signed by a CA generated at start (true),
   * or by this CA (several emulators sharing one CA file). The handle then
   * names the CA file for NODE_EXTRA_CA_CERTS. Default: plain HTTP.
   */
  tls?: boolean | LocalAuthority;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /** The tenant's rate limit; null or absent = no limit (the X-RateLimit-* headers then announce a large bucket that is always full). */
  rateLimit?: RateLimitOptions | null;
  /**
   * Send Retry-After (whole seconds until a request can succeed) on 429 as
   * well. The service documents only the X-RateLimit-* headers; default false.
   */
  retryAfter?: boolean;
  /** Delay before each API request is handled, in milliseconds. */
  latencyMs?: number;
  /** Extra delay drawn uniformly from [0, latencyJitterMs). */
  latencyJitterMs?: number;
  faults?: FaultOptions;
  /** Apply faults to the token endpoint too. Default false. */
  faultsOnToken?: boolean;
  /** Only these user ids exist (others get 404); null or absent = every user id exists. */
  users?: string[] | null;
  /** Load the tenant from this file on start and write it back (atomically, mode 0600) after changes. */
  dataFile?: string;
  /**
   * The tenant at start, shaped like GET /__emulator/state (checked as a PUT
   * of it is; a part left out is empty, or for reference data under API
   * profile full the defaults). Not with dataFile.
   */
  seed?: unknown;
  /** Milliseconds to coalesce writes of dataFile. Default 25. */
  persistDelayMs?: number;
  /** Clients besides the demo client (which always exists and holds every scope). */
  clients?: EmulatorClient[];
  /** HS256 key for tokens. Default: random per instance. */
  signingSecret?: string;
  /** Random source in [0, 1) for faults and latency jitter. Default Math.random. */
  random?: () => number;
  /** This machine's clock in milliseconds. Default Date.now. */
  now?: () => number;
  /**
   * How far the tenant's clock runs ahead of `now` (negative: behind), in
   * milliseconds. The tenant's clock drives token expiry, the rate limit's
   * windows and X-RateLimit-Reset, the Date header and timestamps. Default 0.
   */
  clockSkewMs?: number;
  /**
   * The Date header (date-header.ts): 'second' (the default, as a front end
   * stamps it: to the second, refreshed once a second, so up to a second stale
   * or more under load), 'exact' (the second at the moment of the answer) or
   * 'absent'.
   */
  dateHeader?: DateHeaderMode;
  /**
   * How far the clock that stamps Date (a front end's) runs ahead of the
   * tenant's (the rate limiter's, whose X-RateLimit-Reset it is), in ms;
   * negative: behind. Default 0.
   */
  frontEndOffsetMs?: number;
  /** Sleep used for latency; injectable so tests need not wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Lifetime of issued tokens in seconds. Default 86400. */
  tokenLifetimeSec?: number;
  /** Largest accepted request body in bytes; larger → 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Receives one line per background problem (a failed data-file write). Default: ignored. */
  log?: (line: string) => void;
  /**
   * The kinds the tenant holds and serves. Default: EMULATOR_KINDS, one module
   * per kind of src/resources; a test adds a kind of its own here.
   */
  kinds?: readonly EmulatorKind[];
}

export interface EmulatorStats {
  /** Every request except the admin API's, the token endpoint's included. */
  requests: number;
  /** Status code (or "reset" / "lost" for dropped connections) → count. */
  byStatus: Record<string, number>;
  /** "METHOD /route" (or "unmatched") → count. */
  byRoute: Record<string, number>;
  /**
   * When the first and the last API request (the token endpoint's excluded)
   * reached the rate limit step, in ms on the tenant's clock; absent before
   * the first.
   */
  firstRequestAt?: number;
  lastRequestAt?: number;
}

export interface IssueTokenOptions {
  /** Default: the demo client. An unknown client id yields a token the API rejects with 401. */
  clientId?: string;
  /** Default: every scope of the client (all four for the demo client). */
  scopes?: string[];
  /** Default: tokenLifetimeSec. Negative values make an already expired token. */
  expiresInSec?: number;
}

export interface EmulatorHandle {
  /** http://HOST:PORT/api/v2 (https:// with tls) */
  baseUrl: string;
  /** The API profile served. */
  api: ApiProfile;
  /** The rate limit in force (defaults and tier filled in); null without one. */
  rateLimit: RateLimitSettings | null;
  /** How far the tenant's clock runs ahead of this machine's, in ms. */
  clockSkewMs: number;
  /** How the Date header is stamped. */
  dateHeader: DateHeaderMode;
  /** How far the Date header's clock runs ahead of the tenant's, in ms. */
  frontEndOffsetMs: number;
  /** http://HOST:PORT (https:// with tls) */
  origin: string;
  /** With tls: the PEM file of the CA that signed the server certificate (removed on stop). */
  caFile?: string;
  /** With tls: that CA certificate, PEM. */
  caPem?: string;
  port: number;
  /** A ready bearer token of the demo client with every scope. */
  token: string;
  clientId: string;
  clientSecret: string;
  /** Value for the x-emulator-admin-key header of the /__emulator/ admin API. */
  adminKey: string;
  /** Stops listening, closes open connections and flushes the data file. */
  stop(): Promise<void>;
  snapshot(): EmulatorSnapshot;
  /**
   * Replaces everything the tenant holds, as someone else would have changed
   * it (PUT /__emulator/state): `doc` is shaped like the snapshot; policies
   * and profiles may leave out id, created_at and updated_at. Returns the new
   * snapshot; throws a 400 HttpError naming what is wrong with `doc`.
   */
  replaceState(doc: unknown): EmulatorSnapshot;
  /** Empties the tenant (and the data file) and the rate-limit buckets. */
  reset(): void;
  issueToken(opts?: IssueTokenOptions): string;
  /** Management API requests received: everything except the admin API and the token endpoint. */
  requestCount(): number;
  stats(): EmulatorStats;
}
