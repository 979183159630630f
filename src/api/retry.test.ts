import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  classifyFailure,
  clockOffsetMs,
  describeFailure,
  DEFAULT_RETRY,
  isRetryableStatus,
  JITTER_MS,
  readRateHeaders,
  resetAtMs,
  retryAfterMs,
  waitAfter429,
} from './retry.js';
import { flagWords } from '../cli/run-words.js';
import { plainText } from '../resources/index.js';

const NOW = 1_700_000_000_000;
const policy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000 };
const one = () => 0.999_999;
const zero = () => 0;

describe('Retry-After', () => {
  it.each([
    ['3', 3000],
    ['0', 0],
    [new Date(NOW + 7000).toUTCString(), 7000],
    [new Date(NOW - 7000).toUTCString(), 0],
  ])('reads %s as %i ms', (value, ms) => {
    expect(retryAfterMs({ 'retry-after': value }, NOW)).toBe(ms);
  });

  it.each(['soon', '', '-5', '1.5'])('ignores the unusable value %j', (value) => {
    expect(retryAfterMs({ 'retry-after': value }, NOW)).toBeUndefined();
  });
});

describe('X-RateLimit-Reset', () => {
  it('reads the integer headers and ignores malformed ones', () => {
    expect(
      readRateHeaders({
        'x-ratelimit-limit': '50',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1700000003',
      }),
    ).toEqual({
      limit: 50,
      remaining: 0,
      reset: 1_700_000_003,
    });
    expect(readRateHeaders({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1' })).toEqual({});
  });

  it('places the reset on the local clock, correcting a large server clock skew from Date', () => {
    expect(resetAtMs({ 'x-ratelimit-reset': '1700000003' }, NOW)).toBe(NOW + 3000);
    const skewed = { 'x-ratelimit-reset': '1700000063', date: new Date(NOW + 60_000).toUTCString() };
    expect(clockOffsetMs(skewed, NOW)).toBe(60_000);
    expect(resetAtMs(skewed, NOW)).toBe(NOW + 3000);
  });

  it('ignores a small skew, which is Date rounding rather than a wrong clock', () => {
    expect(clockOffsetMs({ date: new Date(NOW - 900).toUTCString() }, NOW)).toBe(0);
  });
});

describe('waitAfter429', () => {
  it('prefers Retry-After over X-RateLimit-Reset', () => {
    const headers = { 'retry-after': '2', 'x-ratelimit-reset': String(NOW / 1000 + 10) };
    expect(waitAfter429(headers, NOW, 1, zero, policy)).toEqual({ ms: 2000, source: 'retry-after' });
  });

  it('waits until X-RateLimit-Reset when there is no Retry-After, plus jitter', () => {
    const headers = { 'x-ratelimit-reset': String(NOW / 1000 + 4) };
    expect(waitAfter429(headers, NOW, 1, zero, policy)).toEqual({ ms: 4000, source: 'reset' });
    expect(waitAfter429(headers, NOW, 1, one, policy).ms).toBe(4000 + JITTER_MS);
  });

  it('waits only the jitter when the reset is already past', () => {
    expect(waitAfter429({ 'x-ratelimit-reset': String(NOW / 1000 - 5) }, NOW, 1, zero, policy).ms).toBe(0);
  });

  it.each([
    [{ 'retry-after': '3600' }, 'retry-after'],
    [{ 'x-ratelimit-reset': String(NOW / 1000 + 3600) }, 'reset'],
  ])('caps a long wait at maxDelayMs (%o)', (headers, source) => {
    expect(waitAfter429(headers, NOW, 1, zero, policy)).toEqual({ ms: 30_000, source });
  });

  it('falls back to backoff of at least the base delay without either header', () => {
    expect(waitAfter429({}, NOW, 1, zero, policy)).toEqual({ ms: 500, source: 'backoff' });
    expect(waitAfter429({}, NOW, 3, one, policy)).toEqual({ ms: 2000, source: 'backoff' });
  });
});

describe('backoffMs', () => {
  it.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [6, 16_000],
    [7, 30_000],
    [20, 30_000],
  ])('attempt %i has a ceiling of %i ms (jitter over its upper half)', (attempt, ceiling) => {
    expect(backoffMs(attempt, one, policy)).toBe(ceiling);
    expect(backoffMs(attempt, zero, policy)).toBe(ceiling / 2);
  });

  it('defaults to six attempts and a 30 s cap', () => {
    expect(DEFAULT_RETRY).toMatchObject({ maxAttempts: 6, maxDelayMs: 30_000 });
  });
});

describe('isRetryableStatus', () => {
  it.each([
    [408, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [501, false],
    [400, false],
    [401, false],
    [404, false],
    [409, false],
    [429, false],
  ])('%i → %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe('classifyFailure', () => {
  it.each([
    [{ code: 'ECONNRESET' }, 'connect'],
    [{ code: 'UND_ERR_SOCKET' }, 'connect'],
    [{ code: 'UND_ERR_CLOSED' }, 'connect'],
    [{ code: 'ETIMEDOUT' }, 'retry'],
    [{ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, 'connect'],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'timeout'],
    [{ code: 'UND_ERR_BODY_TIMEOUT' }, 'timeout'],
    [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, 'connect'],
    [{ name: 'AbortError' }, 'abort'],
    [{ code: 'UND_ERR_ABORTED' }, 'abort'],
    [{ code: 'ENOTFOUND' }, 'connect'],
    [{ cause: { code: 'ECONNREFUSED' } }, 'connect'],
    [new Error('odd'), 'fatal'],
  ])('%o → %s', (err, kind) => {
    expect(classifyFailure(err).kind).toBe(kind);
  });
});

describe('describeFailure', () => {
  it('names NODE_EXTRA_CA_CERTS for a certificate from a CA this process does not trust, and only then', () => {
    const said = (code: string) => flagWords(describeFailure(code));
    expect(said('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).toBe(
      'TLS certificate cannot be verified, UNABLE_TO_VERIFY_LEAF_SIGNATURE (to trust a private CA, such as that of tenantform emulator --tls, put its file in NODE_EXTRA_CA_CERTS)',
    );
    expect(plainText(describeFailure('UNABLE_TO_VERIFY_LEAF_SIGNATURE'))).toContain(
      "such as that of tenantform emulator the emulator's TLS setting,",
    );
    expect(said('DEPTH_ZERO_SELF_SIGNED_CERT')).toContain('NODE_EXTRA_CA_CERTS');
    expect(said('CERT_HAS_EXPIRED')).toBe('TLS certificate expired, CERT_HAS_EXPIRED');
    expect(said('ECONNREFUSED')).toBe('connection refused, ECONNREFUSED');
  });
});
