import { afterEach, describe, expect, it } from 'vitest';
import { matchesSchema } from '../schemas/index.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorOptions } from './types.js';

let emu: EmulatorHandle | undefined;

/** A random source that returns `values` in order, then 0.99 forever. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++] ?? 0.99;
}

async function start(options: EmulatorOptions): Promise<EmulatorHandle> {
  emu = await startEmulator(options);
  return emu;
}
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'allow' },
};

function createPolicy(e: EmulatorHandle) {
  return fetch(`${e.baseUrl}/rate-limit-policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(policy),
  });
}

const faults = { reset: 0.1, error: 0.2, lost: 0.1 };

describe('faults', () => {
  it('resets the connection before processing: the change is not applied', async () => {
    const e = await start({ faults, random: sequence(0.05) });
    await expect(createPolicy(e)).rejects.toThrow();
    expect(e.snapshot().rateLimitPolicies).toEqual([]);
    expect(e.stats().byStatus).toEqual({ reset: 1 });
  });

  it.each([
    [0.1, 500],
    [0.25, 503],
  ])(
    'answers a draw of %d in the error band with %i and an error body, without applying the change',
    async (r, status) => {
      const e = await start({ faults, random: sequence(r) });
      const res = await createPolicy(e);
      expect(res.status).toBe(status);
      const body = await res.json();
      expect(matchesSchema('error', body)).toBe(true);
      expect(body).toMatchObject({ statusCode: status });
      expect(e.snapshot().rateLimitPolicies).toEqual([]);
    },
  );

  it('loses the response after applying the change', async () => {
    const e = await start({ faults, random: sequence(0.35) });
    await expect(createPolicy(e)).rejects.toThrow();
    expect(e.snapshot().rateLimitPolicies).toHaveLength(1);
    expect(e.stats().byStatus).toEqual({ lost: 1 });
    const retry = await createPolicy(e);
    expect(retry.status).toBe(409);
  });

  it('answers normally for a draw past every fault band', async () => {
    const e = await start({ faults, random: sequence(0.4) });
    expect((await createPolicy(e)).status).toBe(201);
  });

  it('spares the token endpoint unless faultsOnToken is set', async () => {
    const body = (e: EmulatorHandle) =>
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: e.clientId,
        client_secret: e.clientSecret,
        audience: '/api/v2/',
      });
    const token = (e: EmulatorHandle) =>
      fetch(`${e.origin}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(e),
      });
    const spared = await start({ faults: { error: 1 }, random: () => 0.3 });
    expect((await token(spared)).status).toBe(200);
    await spared.stop();
    const hit = await start({ faults: { error: 1 }, faultsOnToken: true, random: () => 0.3 });
    expect((await token(hit)).status).toBe(500);
  });

  it('spares the admin API', async () => {
    const e = await start({ faults: { reset: 1 }, random: () => 0 });
    const res = await fetch(`${e.origin}/__emulator/state`, {
      headers: { 'x-emulator-admin-key': e.adminKey },
    });
    expect(res.status).toBe(200);
  });

  it('waits the latency plus a jitter drawn from the random source before handling', async () => {
    const waits: number[] = [];
    const e = await start({
      latencyMs: 40,
      latencyJitterMs: 10,
      random: sequence(0.5),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect((await createPolicy(e)).status).toBe(201);
    expect(waits).toEqual([45]);
  });

  it('counts requests by status and route, the admin API excluded, and when the first and last came (tenant clock)', async () => {
    let clock = 1_700_000_000_000;
    const e = await start({ now: () => clock, clockSkewMs: 2500 });
    expect(e.stats()).not.toHaveProperty('firstRequestAt');
    await createPolicy(e);
    clock += 700;
    await createPolicy(e);
    clock += 300;
    await fetch(`${e.baseUrl}/nowhere`);
    clock += 100;
    await fetch(`${e.origin}/__emulator/stats`, { headers: { 'x-emulator-admin-key': e.adminKey } });
    expect(e.requestCount()).toBe(3);
    expect(e.stats()).toEqual({
      requests: 3,
      byStatus: { '201': 1, '409': 1, '404': 1 },
      byRoute: { 'POST /api/v2/rate-limit-policies': 2, unmatched: 1 },
      firstRequestAt: 1_700_000_002_500,
      lastRequestAt: 1_700_000_003_500,
    });
    e.reset();
    expect(e.stats()).not.toHaveProperty('firstRequestAt');
  });
});
