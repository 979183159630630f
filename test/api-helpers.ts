/**
 * Shared fixtures of the API client tests: a virtual clock whose sleep moves
 * time forward instead of waiting, a client wired to it, and valid bodies.
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { expect } from 'vitest';
import { ApiError, createApiClient, resolveTarget } from '../src/api/index.js';
import type {
  ApiClient,
  ApiClientOptions,
  RateLimitPolicyCreate,
  Target,
  TokenExchangeProfileCreate,
  WaitKind,
} from '../src/api/index.js';

export const ORIGIN = 'https://tenant.example.com';
export const TARGET: Target = resolveTarget({ domain: 'tenant.example.com' }, {});
export const CANARY_TOKEN = 'canary-token-7f3a9c1e5b2d4f60';
export const CANARY_SECRET = 'canary-secret-Q9x8W7v6U5t4S3r2';
export const CLIENT_ID = 'client-abc';
/** 2023-11-14T22:13:20Z, a whole second. */
export const T0 = 1_700_000_000_000;

export interface VirtualClock {
  now: () => number;
  /** Moves time to max(now, start of the sleep + ms) and records the request. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  sleeps: number[];
  advance(ms: number): void;
}

export function virtualClock(start = T0): VirtualClock {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleeps,
    advance: (ms) => {
      t += ms;
    },
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      const until = t + ms;
      // Yield to I/O as a real timer would, so answers on real sockets arrive in between.
      await new Promise((resolve) => setImmediate(resolve));
      t = Math.max(t, until);
      signal?.throwIfAborted();
    },
  };
}

export interface TestClient {
  client: ApiClient;
  clock: VirtualClock;
  lines: string[];
  waits: { ms: number; reason: string; kind: WaitKind }[];
}

export function testClient(overrides: Partial<ApiClientOptions> = {}): TestClient {
  const clock = virtualClock();
  const lines: string[] = [];
  const waits: { ms: number; reason: string; kind: WaitKind }[] = [];
  const client = createApiClient({
    target: TARGET,
    credentials: { kind: 'token', token: CANARY_TOKEN },
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
    logger: (line) => lines.push(line),
    onWait: (ms, reason, kind) => waits.push({ ms, reason, kind }),
    ...overrides,
  });
  return { client, clock, lines, waits };
}

export const POLICY_BODY: RateLimitPolicyCreate = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'block', limit: 10 },
};

export function policyResponse(id = 'rlp_0123456789abcdefghijk', selector = 'default') {
  return {
    id,
    ...POLICY_BODY,
    consumer_selector: selector,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

export const PROFILE_BODY: TokenExchangeProfileCreate = {
  name: 'partner exchange',
  subject_token_type: 'urn:partner:token',
  action_id: 'act_123',
  type: 'custom_authentication',
};

export function profileResponse(id = 'tep_abc123') {
  return {
    id,
    ...PROFILE_BODY,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

export function errorBody(statusCode: number, error: string, message: string, errorCode?: string) {
  return { statusCode, error, message, ...(errorCode ? { errorCode } : {}) };
}

export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A stand-in undici dispatcher that answers from `handler` at the moment the
 * request is sent, with no I/O: the virtual clock reads the same at the
 * client and at the "server". For pacing tests, where arrival times matter.
 */
export function fakeDispatcher(handler: (req: FakeRequest) => FakeAnswer): Dispatcher {
  const fake = {
    async request(opts: {
      method: string;
      path: string;
      headers?: Record<string, string>;
      body?: string | null;
    }) {
      const answer = handler({
        method: opts.method,
        path: opts.path,
        headers: opts.headers ?? {},
        body: opts.body ?? undefined,
      });
      const text =
        answer.body === undefined
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body);
      return {
        statusCode: answer.status,
        headers: answer.headers ?? {},
        body: Readable.from([Buffer.from(text)]),
      };
    },
    close: async () => {},
  };
  return fake as unknown as Dispatcher;
}

/** The ApiError a call rejects with; fails the test when it resolves or throws something else. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the call to fail');
}
