/**
 * Latency past the request timeout. The CLI has no request-timeout flag, so
 * this drives the executor and the API client in-process with a 150 ms
 * timeout against an emulator whose first answers take 2.5 s: those
 * requests time out (and are retried once); the apply still ends, within a
 * bound, with a report naming each failure as a timeout; a follow-up apply
 * with the default timeout converges and a further plan is empty.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, resolveTarget, type ApiClient } from '../../src/api/index.js';
import { applyPlan, type ApplyResult } from '../../src/apply/index.js';
import { loadConfig } from '../../src/config/index.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { hasChanges, planChanges } from '../../src/plan/index.js';
import { createMemoryStateStore, openState, type StateSession } from '../../src/state/index.js';
import { tempDir } from '../helpers/cli.js';
import {
  buildConfig,
  expectedContent,
  seededRandom,
  stateProblems,
  tenantContent,
  writeConfig,
  type StateFile,
} from './tenant-config.js';

// undici enforces header timeouts with a coarse timer (ticks of about 0.5 s), so a 150 ms
// timeout fires after up to ~1.5 s; the slow answers take longer than that.
const TIMEOUT_MS = 150;
const SLOW_MS = 2_500;
const SLOW_REQUESTS = 6;

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;
const clients: ApiClient[] = [];
let session: StateSession | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-timeout-'));
  let arrivals = 0;
  emulator = await startEmulator({
    latencyMs: 1,
    // The first SLOW_REQUESTS requests answer after SLOW_MS; later ones at once.
    sleep: (ms) => delay(++arrivals <= SLOW_REQUESTS ? SLOW_MS : ms),
  });
});

afterEach(async () => {
  await session?.release();
  session = undefined;
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await emulator.stop();
  cleanup();
});

function client(requestTimeoutMs?: number): ApiClient {
  const c = createApiClient({
    target: resolveTarget({ baseUrl: emulator.baseUrl }, {}),
    credentials: { kind: 'token', token: emulator.token },
    parallelism: 4,
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
  });
  clients.push(c);
  return c;
}

/** Fails the test instead of hanging when `work` does not settle in time. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms: a hang`)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

describe('latency past the request timeout', () => {
  it('reports the timed-out operations as failures, then converges with the default timeout', async () => {
    const config = buildConfig(seededRandom(8), 'slow', {
      policies: 10,
      profiles: 4,
      users: 4,
      permissionsPerUser: 2,
    });
    const configPath = join(dir, 'tenant.yaml');
    writeConfig(configPath, config);
    const loaded = await loadConfig(configPath, { cwd: dir, env: {} });
    expect(loaded.issues).toEqual([]);
    session = await openState(createMemoryStateStore(), { command: 'apply' });

    const plan = planChanges(loaded.desired, session.doc);
    const slowClient = client(TIMEOUT_MS);
    const first: ApplyResult = await within(
      30_000,
      applyPlan(plan, { client: slowClient, recorder: session, parallelism: 4 }),
    );
    expect(first.failed.length).toBeGreaterThan(0);
    for (const failure of first.failed) {
      expect(failure.code).toBe('API_TIMEOUT');
      expect(failure.message).toMatch(/timed out/);
    }
    expect(first.done.length).toBeGreaterThan(0);
    expect(first.done.length + first.failed.length + first.notAttempted.length).toBe(loaded.desired.length);
    expect(slowClient.stats().retries).toBeGreaterThan(0);
    await session.commit();

    const second = await within(
      30_000,
      applyPlan(planChanges(loaded.desired, session.doc), { client: client(), recorder: session }),
    );
    expect(second.failed).toEqual([]);
    expect(second.notAttempted).toEqual([]);
    await session.commit();

    const snapshot = emulator.snapshot();
    expect(tenantContent(snapshot)).toEqual(expectedContent(config));
    const { problems, adopted } = stateProblems(session.doc as StateFile, config, snapshot);
    expect(problems).toEqual([]);
    // A timed-out request the emulator still carried out comes back as 409 on the retry.
    expect(adopted).toBeLessThanOrEqual(SLOW_REQUESTS);
    const before = emulator.requestCount();
    expect(hasChanges(planChanges(loaded.desired, session.doc))).toBe(false);
    expect(emulator.requestCount()).toBe(before);
  });
});
