/**
 * Transport and response handling: malformed success bodies, nock really
 * seeing the built-in Agent's requests, TLS and pool settings, aborts and
 * the debug lines.
 */
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentOptions, type ApiClient } from '../src/api/index.js';
import {
  ORIGIN,
  POLICY_BODY,
  PROFILE_BODY,
  errorBody,
  failure,
  policyResponse,
  testClient,
  type TestClient,
} from './api-helpers.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
let t: TestClient | undefined;

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
});

describe('malformed success bodies', () => {
  it.each([
    [
      'createRateLimitPolicy',
      (c: ApiClient) => c.createRateLimitPolicy(POLICY_BODY),
      '/api/v2/rate-limit-policies',
      { id: 42 },
    ],
    [
      'createRateLimitPolicy',
      (c: ApiClient) => c.createRateLimitPolicy(POLICY_BODY),
      '/api/v2/rate-limit-policies',
      '<html>',
    ],
    [
      'createRateLimitPolicy',
      (c: ApiClient) => c.createRateLimitPolicy(POLICY_BODY),
      '/api/v2/rate-limit-policies',
      '',
    ],
    [
      'createTokenExchangeProfile',
      (c: ApiClient) => c.createTokenExchangeProfile(PROFILE_BODY),
      '/api/v2/token-exchange-profiles',
      { name: 'no id' },
    ],
    [
      'createTokenExchangeProfile',
      (c: ApiClient) => c.createTokenExchangeProfile(PROFILE_BODY),
      '/api/v2/token-exchange-profiles',
      [1, 2],
    ],
  ])('%s: a 201 with %j is API_BAD_RESPONSE naming the operation', async (name, call, path, body) => {
    t = testClient();
    nock(ORIGIN)
      .post(path)
      .reply(201, body as nock.Body);
    const err = await failure(call(t.client));
    expect(err).toMatchObject({ code: 'API_BAD_RESPONSE', operation: name, status: 201, retryable: false });
    expect(err.message).toMatch(new RegExp(`^${name}: POST ${path} answered 201 with `));
  });

  it('says which fields of a created policy are wrong', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/api/v2/rate-limit-policies')
      .reply(201, { ...policyResponse(), configuration: { action: 'block', limit: 99999 } });
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err.message).toContain('limit must be at most 10000');
  });
});

describe('transport', () => {
  it('really sends through undici: nock sees every request of the built-in Agent', async () => {
    t = testClient();
    const s = nock(ORIGIN).post('/api/v2/rate-limit-policies').times(3).reply(201, policyResponse());
    for (let i = 0; i < 3; i++) await t.client.createRateLimitPolicy(POLICY_BODY);
    expect(s.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('refuses a body larger than 1 MiB as a bad response, whatever its chunks', async () => {
    t = testClient();
    const chunk = Buffer.alloc(600 * 1024, 0x20);
    nock(ORIGIN)
      .post('/api/v2/rate-limit-policies')
      .reply(201, () => Readable.from([chunk, chunk]));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_BAD_RESPONSE', retryable: false });
    expect(err.message).toContain('a body too large to read');
  });

  it('keeps TLS verification on, sizes connections to the parallelism and sets timeouts', () => {
    const opts = agentOptions({ parallelism: 16, connectTimeoutMs: 5000, requestTimeoutMs: 20_000 });
    expect(opts).toMatchObject({
      connections: 16,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
      connect: { timeout: 5000, rejectUnauthorized: true },
    });
  });

  it('refuses a dot-segment id before sending anything', async () => {
    t = testClient();
    await expect(t.client.deleteRateLimitPolicy('..')).rejects.toMatchObject({ code: 'API_INVALID_ID' });
    expect(t.client.stats().requests).toBe(0);
  });

  it('stops with API_ABORTED when the signal aborts during a retry wait', async () => {
    const controller = new AbortController();
    t = testClient({
      signal: controller.signal,
      sleep: async (_ms, signal) => {
        controller.abort();
        signal?.throwIfAborted();
      },
    });
    nock(ORIGIN)
      .post('/api/v2/rate-limit-policies')
      .reply(503, errorBody(503, 'Service Unavailable', 'busy'));
    const err = await failure(t.client.createRateLimitPolicy(POLICY_BODY));
    expect(err).toMatchObject({ code: 'API_ABORTED', status: 0, operation: 'createRateLimitPolicy' });
  });

  it('does not start a request once the signal has aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    t = testClient({ signal: controller.signal });
    const err = await failure(
      t.client.assignUserPermissions('u1', [{ resource_server_identifier: 'a', permission_name: 'b' }]),
    );
    expect(err.code).toBe('API_ABORTED');
    expect(t.client.stats().requests).toBe(0);
  });

  it('writes one debug line per attempt with method, path, status, duration, attempt and rate headers', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/api/v2/rate-limit-policies')
      .reply(503, errorBody(503, 'Service Unavailable', 'busy'), {
        'x-ratelimit-limit': '50',
        'x-ratelimit-remaining': '49',
        'x-ratelimit-reset': '1700000001',
      });
    nock(ORIGIN).post('/api/v2/rate-limit-policies').reply(201, policyResponse());
    await t.client.createRateLimitPolicy(POLICY_BODY);
    const attempts = t.lines.filter((l) => !l.startsWith('wait'));
    expect(attempts).toEqual([
      'POST /api/v2/rate-limit-policies 503 0ms attempt=1 ratelimit-limit=50 ratelimit-remaining=49 ratelimit-reset=1700000001',
      'POST /api/v2/rate-limit-policies 201 0ms attempt=2',
    ]);
  });
});

describe('start-up cost', () => {
  // undici's index also loads fetch, WebSocket, caches and mocks: most of its load time.
  it("loads undici's Agent and request() without its index, and gives the Agent request()", () => {
    const transport = pathToFileURL(join(ROOT, 'dist', 'api', 'transport.js')).href;
    const script = [
      `import { createRequire } from 'node:module';`,
      `import { createAgent } from ${JSON.stringify(transport)};`,
      `const agent = createAgent({ parallelism: 1, connectTimeoutMs: 1000, requestTimeoutMs: 1000 });`,
      `const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('undici'));`,
      `console.log(JSON.stringify({ request: typeof agent.request, index: loaded.some((f) => /undici[\\\\/]index\\.js$/.test(f)), files: loaded.length }));`,
      `await agent.close();`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as { request: string; index: boolean; files: number };
    expect(seen).toMatchObject({ request: 'function', index: false });
    expect(seen.files).toBeGreaterThan(0);
  });
});
