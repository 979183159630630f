import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiClientOptions, RateGroupFacts } from '../api/index.js';
import { createMemoryStateStore } from '../state/index.js';
import { rememberingClient } from './connection.js';
import type { RunIO } from './requests.js';

const target = {
  baseUrl: 'https://tenant-a.example/api/v2',
  origin: 'https://tenant-a.example',
  tokenUrl: 'https://tenant-a.example/oauth/token',
  audience: 'https://tenant-a.example/api/v2/',
};

const facts: RateGroupFacts = {
  routes: ['createRateLimitPolicy'],
  limit: 10,
  remaining: 4,
  at: Date.now(),
  resetAt: Date.now() + 1000,
  refill: 'window',
  step: 2,
  windowMs: 1000,
};

describe('a client that keeps the rate-limit facts when closed', () => {
  it('closes once and writes the facts once, however often it is closed', async () => {
    const store = createMemoryStateStore();
    let writes = 0;
    const write = store.writeRateLimits.bind(store);
    store.writeRateLimits = (text) => {
      writes++;
      return write(text);
    };
    let closes = 0;
    const client = {
      rateFacts: () => [facts],
      close: async () => void closes++,
    } as unknown as ApiClient;
    const io: RunIO = { env: {}, cwd: '/', notice: () => {} };
    const options = { target, parallelism: 10 } as unknown as ApiClientOptions;
    const made = await rememberingClient(() => client, options, store, false, io);
    await Promise.all([made.close(), made.close()]);
    await made.close();
    expect(closes).toBe(1);
    expect(writes).toBe(1);
    expect(await store.readRateLimits()).toMatch(/"remaining": 4/);
  });
});
