/**
 * Typed errors of the API client. An ApiError carries what a user or the
 * executor needs to decide (status, code, retryable, which operation and path)
 * and nothing that could hold a secret: no headers, no request body, no
 * response body beyond the error fields.
 */
import type { ApiErrorInfo } from './types.js';
import { plainText, type Wording } from '../resources/settings.js';

export type ApiErrorCode =
  | 'API_BAD_REQUEST'
  | 'API_UNAUTHORIZED'
  | 'API_FORBIDDEN'
  | 'API_NOT_FOUND'
  | 'API_CONFLICT'
  | 'API_CLIENT_ERROR'
  | 'API_RATE_LIMITED'
  | 'API_SERVER_ERROR'
  | 'API_NETWORK'
  | 'API_UNREACHABLE'
  | 'API_BAD_RESPONSE'
  | 'API_TIMEOUT'
  | 'API_ABORTED';

export interface ApiErrorFields {
  code: ApiErrorCode;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  error: string;
  /** The server's own message (masked), when it sent one. */
  serverMessage?: string;
  errorCode?: string;
  method: string;
  /** Path as sent, ids percent-encoded. */
  path: string;
  /** The operation descriptor's name, e.g. "createRateLimitPolicy" (or "fetchToken"). */
  operation: string;
  /** True when the same request could succeed later (rate limit, server or network trouble). */
  retryable: boolean;
  /** Attempts made before giving up. */
  attempts: number;
  /** What to do about it (already the message's last sentence), e.g. for 401 and 403. */
  hint?: string;
  /** The message with the settings it names as data (src/cli words them with flags). */
  wording?: Wording;
  /** The hint likewise. */
  hintWording?: Wording;
}

/** A failed API call. The message is one sentence a person can act on. */
export class ApiError extends Error implements ApiErrorFields {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly error: string;
  readonly serverMessage?: string;
  readonly errorCode?: string;
  readonly method: string;
  readonly path: string;
  readonly operation: string;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly hint?: string;
  readonly wording?: Wording;
  readonly hintWording?: Wording;

  constructor(message: string, fields: ApiErrorFields) {
    super(message);
    this.name = 'ApiError';
    this.code = fields.code;
    this.status = fields.status;
    this.error = fields.error;
    if (fields.serverMessage !== undefined) this.serverMessage = fields.serverMessage;
    if (fields.errorCode !== undefined) this.errorCode = fields.errorCode;
    this.method = fields.method;
    this.path = fields.path;
    this.operation = fields.operation;
    this.retryable = fields.retryable;
    this.attempts = fields.attempts;
    if (fields.hint !== undefined) this.hint = fields.hint;
    if (fields.wording !== undefined) this.wording = fields.wording;
    if (fields.hintWording !== undefined) this.hintWording = fields.hintWording;
  }
}

/** A target or credentials setting that cannot work; raised before any request. */
export class ApiConfigError extends Error {
  readonly code = 'API_CONFIG';
  /** The message with the settings it names as data (src/cli words them with flags). */
  readonly wording?: Wording;
  constructor(message: string | Wording) {
    super(typeof message === 'string' ? message : plainText(message));
    this.name = 'ApiConfigError';
    if (typeof message !== 'string') this.wording = message;
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The stable code for a final HTTP status. */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 400) return 'API_BAD_REQUEST';
  if (status === 401) return 'API_UNAUTHORIZED';
  if (status === 403) return 'API_FORBIDDEN';
  if (status === 404) return 'API_NOT_FOUND';
  if (status === 408) return 'API_TIMEOUT';
  if (status === 409) return 'API_CONFLICT';
  if (status === 429) return 'API_RATE_LIMITED';
  if (status >= 500) return 'API_SERVER_ERROR';
  return 'API_CLIENT_ERROR';
}

function text(value: unknown, max = 500): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * Reads the error fields of a response body: the API's
 * {statusCode, error, message, errorCode} or OAuth's {error, error_description}.
 * Anything else in the body is dropped.
 */
export function errorInfoFromBody(
  status: number,
  rawBody: string,
  mask: (s: string) => string,
): ApiErrorInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    parsed = undefined;
  }
  const body = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  const error = text(body.error, 100) ?? REASONS[status] ?? `HTTP ${status}`;
  const message = text(body.message) ?? text(body.error_description) ?? '';
  const info: ApiErrorInfo = { status, error: mask(error), message: mask(message) };
  const errorCode = text(body.errorCode, 100);
  if (errorCode !== undefined) info.errorCode = mask(errorCode);
  return info;
}

/** "400 Bad Request: limit must be … (errorCode)" */
export function describeInfo(info: ApiErrorInfo): string {
  const detail = info.message ? `: ${info.message}` : '';
  const code = info.errorCode ? ` (${info.errorCode})` : '';
  return `${info.status} ${info.error}${detail}${code}`;
}
