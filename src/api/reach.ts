/**
 * Whether the tenant may still be asked, one per client and shared by all its
 * calls. Two things end a run: a request that finds the tenant unreachable
 * (connection failures, see retry.ts), and a tenant that has answered nothing
 * but 429 for the rate-limit timeout. Either way nothing more is sent, the
 * calls waiting to send stop waiting (the halt signal), and every call ends
 * with the same error: `attempts` 0 when it never sent anything, so that
 * apply reports it as not attempted.
 */
import { ApiError } from './errors.js';
import { describeFailure, formatDuration } from './retry.js';
import { joined, plainText, setting, words, type Wording } from '../resources/settings.js';

/** Which request an error is about. */
export interface RequestName {
  operation: string;
  method: string;
  /** Path as sent. */
  path: string;
}

export class Reachability {
  /** The connection failure code that made a request give up. */
  private unreachable: string | undefined;
  /** Arrival of the first 429 since an answer of another status; undefined while requests get through. */
  private limitedSince: number | undefined;
  private limitTimedOut = false;
  private readonly halted = new AbortController();

  constructor(
    /** The API base URL, to name in messages. */
    private readonly target: string,
    private readonly rateLimitTimeoutMs: number,
    private readonly redact: (text: string) => string,
    /** The proxy the target is reached through, as shown ("http://proxy:3128 (HTTPS_PROXY)"); undefined: directly. */
    private readonly via?: string,
  ) {}

  /** Aborted once the run has ended: waits for a turn to send end with it. */
  get halt(): AbortSignal {
    return this.halted.signal;
  }

  /**
   * Notes an answer that arrived at `now`. Any status but 429 shows requests
   * getting through; a 429 after nothing but 429s for the timeout ends the
   * run, and the error for the call it answered comes back.
   */
  answered(status: number, now: number, request: RequestName, attempts: number): ApiError | undefined {
    if (status !== 429) {
      this.limitedSince = undefined;
      return undefined;
    }
    this.limitedSince ??= now;
    if (now - this.limitedSince < this.rateLimitTimeoutMs) return undefined;
    this.limitTimedOut = true;
    this.halted.abort();
    return this.rateLimitError(request, attempts);
  }

  /**
   * When the run ends unless an answer other than 429 comes first: the first
   * 429 of the streak plus the timeout; undefined while requests get through.
   */
  get deadline(): number | undefined {
    return this.limitedSince === undefined ? undefined : this.limitedSince + this.rateLimitTimeoutMs;
  }

  /** The deadline came while requests waited for their turn: the run ends; calls get the timeout's error. */
  expire(): void {
    if (this.limitedSince === undefined) return;
    this.limitTimedOut = true;
    this.halted.abort();
  }

  /** A request gave up on connecting: the tenant is unreachable from now on. */
  lost(code: string, request: RequestName, attempts: number): ApiError {
    this.unreachable ??= code;
    this.halted.abort();
    return this.unreachableError(request, code, attempts);
  }

  /** The error a call ends with when the run has ended, or undefined while it may send. */
  stopped(request: RequestName, attempts: number): ApiError | undefined {
    if (this.unreachable !== undefined) return this.unreachableError(request, this.unreachable, 0);
    if (this.limitTimedOut) return this.rateLimitError(request, attempts);
    return undefined;
  }

  /** The target cannot be reached: a request gave up (attempts > 0), or a later one was not sent at all. */
  private unreachableError(request: RequestName, code: string, attempts: number): ApiError {
    const tries = attempts > 1 ? `, after ${attempts} attempts` : '';
    const where = this.where(code);
    const failure = describeFailure(code);
    const said =
      attempts > 0
        ? joined(`Cannot reach ${where}: `, failure, tries)
        : joined(`${request.operation} not sent: ${where} is unreachable (`, failure, ')');
    const wording: Wording = {
      parts: said.parts.map((part) => (typeof part === 'string' ? this.redact(part) : part)),
    };
    return new ApiError(plainText(wording), {
      wording,
      code: 'API_UNREACHABLE',
      status: 0,
      error: 'Unreachable',
      ...request,
      retryable: true,
      attempts,
    });
  }

  /**
   * What could not be reached: the tenant, the tenant through its proxy (the
   * proxy answered, and refused), or the proxy itself (no answer from it).
   */
  private where(code: string): string {
    if (!this.via) return `the tenant at ${this.target}`;
    if (code.startsWith('PROXY_')) return `the tenant at ${this.target} through the proxy ${this.via}`;
    return `the proxy ${this.via} for the tenant at ${this.target}`;
  }

  /** One message for every call the timeout ends, so that a summary shows it once. */
  private rateLimitError(request: RequestName, attempts: number): ApiError {
    const head = this.redact(
      `The tenant at ${this.target} answered nothing but 429 (rate limited) for ` +
        `${formatDuration(this.rateLimitTimeoutMs)}, the rate-limit timeout, so nothing more was sent; ` +
        'to wait longer, raise ',
    );
    const wording = words`${head}${setting('rateLimitTimeout')}`;
    return new ApiError(plainText(wording), {
      wording,
      code: 'API_RATE_LIMITED',
      status: 429,
      error: 'Too Many Requests',
      ...request,
      retryable: true,
      attempts,
    });
  }
}
