/**
 * Retry decisions and wait computations, pure over headers, a clock reading
 * and a random source: what to retry, and how long to wait before the retry.
 */
import { setting, words, type Wording } from '../resources/settings.js';

export type Headers = Record<string, string | string[] | undefined>;

export interface RetryPolicy {
  /** Attempts of one request that end in 408, 5xx or a network error (429s do not count). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The client stops once the tenant has answered nothing but 429 for this long. */
  rateLimitTimeoutMs: number;
}

/**
 * The rate-limit timeout is 5 minutes: five windows of the longest the service
 * documents (per-minute limits), time enough for another client's burst on a
 * shared tenant to pass, and short enough that a stuck CI job says so.
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  rateLimitTimeoutMs: 300_000,
};

/** "5m", "90s", "1.5s", "250ms": a duration as the duration flags take it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 100) / 10}s`;
}

/** Largest random extra added to waits derived from headers, so waiters do not wake together. */
export const JITTER_MS = 250;

/** Server clocks further than this from ours are corrected for using the Date header. */
const SKEW_TOLERANCE_MS = 5_000;

export function header(headers: Headers, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function intHeader(headers: Headers, name: string): number | undefined {
  const v = header(headers, name)?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** Unix time in seconds. */
  reset?: number;
}

export function readRateHeaders(headers: Headers): RateHeaders {
  const out: RateHeaders = {};
  const limit = intHeader(headers, 'x-ratelimit-limit');
  const remaining = intHeader(headers, 'x-ratelimit-remaining');
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (limit !== undefined) out.limit = limit;
  if (remaining !== undefined) out.remaining = remaining;
  if (reset !== undefined) out.reset = reset;
  return out;
}

/** Server clock minus ours, when the Date header shows a skew worth correcting; else 0. */
export function clockOffsetMs(headers: Headers, now: number): number {
  const date = header(headers, 'date');
  if (date === undefined) return 0;
  const server = Date.parse(date);
  if (Number.isNaN(server)) return 0;
  const offset = server - now;
  return Math.abs(offset) > SKEW_TOLERANCE_MS ? offset : 0;
}

/** Local clock time (ms) at which X-RateLimit-Reset falls, or undefined. */
export function resetAtMs(headers: Headers, now: number): number | undefined {
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (reset === undefined) return undefined;
  return reset * 1000 - clockOffsetMs(headers, now);
}

/** Milliseconds Retry-After asks for (delta seconds or an HTTP date), or undefined. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const v = header(headers, 'retry-after')?.trim();
  if (v === undefined || v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[A-Za-z]{3}/.test(v)) return undefined; // an HTTP date names its day or month
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - clockOffsetMs(headers, now) - now);
}

/** The parts of a policy a wait is computed from. */
export type Delays = Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;

export interface Wait {
  ms: number;
  source: 'retry-after' | 'reset' | 'backoff';
}

/**
 * Exponential backoff for attempt n (1 = first retry), capped: half the
 * ceiling plus a random part of the other half, so retries spread out but
 * never come back at once.
 */
export function backoffMs(attempt: number, random: () => number, policy: Delays): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Wait before retrying a 429: Retry-After, else X-RateLimit-Reset, else backoff; capped. */
export function waitAfter429(
  headers: Headers,
  now: number,
  attempt: number,
  random: () => number,
  policy: Delays,
): Wait {
  const jitter = Math.round(random() * JITTER_MS);
  const after = retryAfterMs(headers, now);
  if (after !== undefined) return { ms: Math.min(policy.maxDelayMs, after + jitter), source: 'retry-after' };
  const resetAt = resetAtMs(headers, now);
  if (resetAt !== undefined) {
    return { ms: Math.min(policy.maxDelayMs, Math.max(0, resetAt - now) + jitter), source: 'reset' };
  }
  return { ms: Math.max(backoffMs(attempt, random, policy), policy.baseDelayMs), source: 'backoff' };
}

/** Statuses worth repeating the same request for (besides 429, handled apart). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || (status >= 500 && status !== 501 && status !== 505);
}

/**
 * connect: no answer came because the connection failed (refused, reset before
 * any answer, name not resolved, TLS refused): retried a few times, then the
 * target counts as unreachable. timeout: sent, but the answer did not come in
 * time. retry: other network trouble worth repeating.
 */
export type FailureKind = 'connect' | 'retry' | 'timeout' | 'abort' | 'fatal';

/** Attempts of one request that fail to connect before the target counts as unreachable. */
export const CONNECT_ATTEMPTS = 4;

/** What a connection failure code means, in words. */
const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset before any answer',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed before any answer',
  UND_ERR_CLOSED: 'connection closed before any answer',
  UND_ERR_CONNECT_TIMEOUT: 'connection attempt timed out',
  EPROTO: 'TLS handshake failed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate issuer unknown',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not name this host',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed, not a TLS server?',
  UND_ERR_PRX_CONN: 'connection to the proxy closed before it connected',
  UND_ERR_PRX_TLS: 'TLS handshake with the proxy failed',
};
const RETRY_CODES = new Set(['ETIMEDOUT']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Certificates no CA this process trusts vouches for: a private CA, such as the emulator's TLS one. */
const UNTRUSTED_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** A proxy's refusal, as undici reports it: the status of its answer to CONNECT, or a forwarded 407. */
const PROXY_REFUSAL =
  /^Proxy (?:response \((\d{3})\) !== 200 when HTTP Tunneling|Authentication Required \((407)\))/;

/** What a proxy's refusal means (PROXY_407, PROXY_502, ...). */
function describeProxyRefusal(code: string): string | undefined {
  const status = /^PROXY_(\d{3})$/.exec(code)?.[1];
  if (status === undefined) return undefined;
  if (status === '407') {
    return 'the proxy asks for credentials (407 Proxy Authentication Required): put the user and password in the proxy URL, http://USER:PASSWORD@HOST:PORT';
  }
  return `the proxy refused to connect to it (answered ${status})`;
}

/** "connection refused, ECONNREFUSED"; a setting it names (the emulator's TLS) kept as data. */
export function describeFailure(code: string): Wording {
  const refusal = describeProxyRefusal(code);
  if (refusal) return words`${refusal}`;
  const known = CONNECT_CODES[code];
  if (!known) return words`${code}`;
  return UNTRUSTED_CODES.has(code)
    ? words`${known}, ${code} (to trust a private CA, such as that of tenantform emulator ${setting('emulatorTls')}, put its file in NODE_EXTRA_CA_CERTS)`
    : words`${known}, ${code}`;
}

/** Classifies an error thrown by undici (or a sleep) for the retry loop. */
export function classifyFailure(err: unknown): { kind: FailureKind; code: string } {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  const refused = PROXY_REFUSAL.exec((err as { message?: unknown })?.message?.toString() ?? '');
  if (refused) return { kind: 'connect', code: `PROXY_${refused[1] ?? refused[2]}` };
  if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR')
    return { kind: 'abort', code: 'ABORTED' };
  if (CONNECT_CODES[code] !== undefined || /^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code))
    return { kind: 'connect', code };
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout', code };
  if (RETRY_CODES.has(code)) return { kind: 'retry', code };
  return { kind: 'fatal', code: code || 'UNKNOWN' };
}
