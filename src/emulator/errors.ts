/**
 * The emulator's error type and the service's error body:
 * {"statusCode": 409, "error": "Conflict", "message": "…", "errorCode": "…"}.
 */

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  errorCode?: string;
  [extra: string]: unknown;
}

/** An answer other than success; carries its own status, body and extra headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorCode?: string,
    readonly headers: Record<string, string> = {},
    /** Overrides the `error` field (the token endpoint uses OAuth error codes there). */
    readonly errorName?: string,
  ) {
    super(message);
  }

  body(): ErrorBody {
    const body: ErrorBody = {
      statusCode: this.status,
      error: this.errorName ?? REASONS[this.status] ?? 'Error',
      message: this.message,
    };
    if (this.errorCode !== undefined) body.errorCode = this.errorCode;
    if (this.errorName !== undefined) body.error_description = this.message;
    return body;
  }
}

export function badRequest(message: string, errorCode = 'invalid_body'): HttpError {
  return new HttpError(400, message, errorCode);
}

export function notFound(message: string, errorCode = 'not_found'): HttpError {
  return new HttpError(404, message, errorCode);
}

export function unauthorized(message: string, errorCode = 'invalid_token'): HttpError {
  return new HttpError(401, message, errorCode);
}
