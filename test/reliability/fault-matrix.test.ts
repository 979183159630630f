/**
 * Fault matrix: the built CLI applies a mixed change (creates, replaces,
 * deletes, permissions, profiles) while the emulator misbehaves: 5xx answers,
 * connection resets, lost responses (applied, then the connection drops), a
 * 429 storm, tokens that expire mid-apply (client credentials). Every run
 * ends within its time limit in success or in a partial-failure report with
 * counts (exit 1), never in a crash; with the faults off, a follow-up apply
 * converges and a further one sends nothing.
 * (Latency past the request timeout is in request-timeout.test.ts.)
 */
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startEmulator,
  type EmulatorHandle,
  type EmulatorOptions,
  type EmulatorStats,
} from '../../src/emulator/index.js';
import { tempDir } from '../helpers/cli.js';
import {
  assertBuilt,
  ChaosSwitch,
  childEnv,
  Children,
  INTERNAL_ERROR,
  PARTIAL_REPORT,
  RequestTrap,
  type ChildResult,
} from './harness.js';
import {
  buildConfig,
  evolveConfig,
  expectedContent,
  readStateFile,
  seededRandom,
  stateProblems,
  tenantContent,
  writeConfig,
  type Sizes,
} from './tenant-config.js';

const RUN_LIMIT_MS = 90_000;
const STORM_BURST = 4;

interface Scenario {
  name: string;
  seed: number;
  clockSpeed?: number;
  options: (chaos: ChaosSwitch, trap: RequestTrap) => EmulatorOptions;
  /** Credentials for the child's environment. */
  credentials: (emulator: EmulatorHandle) => Record<string, string>;
  /** Apply a first config with the chaos off, so the faulty run also replaces and deletes. */
  baseline: boolean;
  sizes: Sizes;
  /** How many of the faults this scenario is about happened during the faulty run (must be > 0). */
  evidence: (stats: EmulatorStats) => number;
  /** Upper bound of resources adopted through 409 (lost answers of creates). */
  maxAdopted: (stats: EmulatorStats) => number;
  /** Starts background traffic during the faulty run; returns its stop function. */
  noise?: (emulator: EmulatorHandle, trap: RequestTrap) => () => Promise<void>;
}

/**
 * Another caller spending the same client's quota (same token, so the same
 * bucket): before about every third request reaching the emulator is
 * handled, it empties the bucket, so that request meets a 429 that pacing
 * could not foresee.
 */
function rivalTraffic(emulator: EmulatorHandle, trap: RequestTrap): () => Promise<void> {
  const drain = async () => {
    const rival = () =>
      fetch(`${emulator.baseUrl}/rate-limit-policies/rlp_rival`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${emulator.token}` },
      }).then((r) => r.arrayBuffer());
    await Promise.all(Array.from({ length: STORM_BURST }, rival));
  };
  trap.before(3, drain);
  return async () => trap.before(0, null);
}

const status = (stats: EmulatorStats, key: string): number => stats.byStatus[key] ?? 0;
const token = (e: EmulatorHandle) => ({ TENANTFORM_TOKEN: e.token });
const SMALL: Sizes = { policies: 12, profiles: 5, users: 4, permissionsPerUser: 3 };

const SCENARIOS: Scenario[] = [
  {
    name: '20% 5xx answers',
    seed: 101,
    options: (c) => ({ faults: { error: 0.2 }, random: c.random }),
    credentials: token,
    baseline: true,
    sizes: SMALL,
    evidence: (s) => status(s, '500') + status(s, '503'),
    maxAdopted: () => 0,
  },
  {
    name: '10% connection resets',
    seed: 202,
    options: (c) => ({ faults: { reset: 0.1 }, random: c.random }),
    credentials: token,
    baseline: true,
    sizes: SMALL,
    evidence: (s) => status(s, 'reset'),
    maxAdopted: () => 0,
  },
  {
    name: 'lost responses (applied, then the connection drops)',
    seed: 303,
    options: (c) => ({ faults: { lost: 0.2 }, random: c.random }),
    credentials: token,
    baseline: true,
    sizes: SMALL,
    evidence: (s) => status(s, 'lost'),
    maxAdopted: (s) => status(s, 'lost'),
  },
  {
    name: '5xx, resets and lost responses together',
    seed: 404,
    options: (c) => ({ faults: { error: 0.2, reset: 0.1, lost: 0.1 }, random: c.random }),
    credentials: token,
    baseline: true,
    sizes: SMALL,
    evidence: (s) => status(s, '500') + status(s, '503') + status(s, 'reset') + status(s, 'lost'),
    maxAdopted: (s) => status(s, 'lost'),
  },
  {
    name: 'a 429 storm (a rival caller empties the shared quota before every third request)',
    seed: 505,
    options: (_c, trap) => ({
      rateLimit: { perSecond: 10, burst: STORM_BURST },
      latencyMs: 1,
      sleep: trap.sleep,
    }),
    credentials: token,
    baseline: true,
    sizes: { policies: 6, profiles: 2, users: 2, permissionsPerUser: 2 },
    evidence: (s) => status(s, '429'),
    maxAdopted: () => 0,
    noise: rivalTraffic,
  },
  {
    // Tokens last 5 s of emulator time, about 0.25 s of real time, while the client believes 5 s:
    // the ~50 requests at 25 ms each, 4 at a time, outlast the first token, so the API answers 401.
    name: 'tokens expiring mid-apply (client credentials, emulator clock 20× fast)',
    seed: 606,
    clockSpeed: 20,
    options: (c) => ({ tokenLifetimeSec: 5, now: c.now, latencyMs: 25 }),
    credentials: (e) => ({ TENANTFORM_CLIENT_ID: e.clientId, TENANTFORM_CLIENT_SECRET: e.clientSecret }),
    baseline: true,
    sizes: { policies: 20, profiles: 8, users: 6, permissionsPerUser: 3 },
    evidence: (s) => status(s, '401'),
    maxAdopted: () => 0,
  },
];

let emulator: EmulatorHandle | undefined;
let children: Children;
let dir: string;
let cleanup: () => void;

beforeAll(assertBuilt);
beforeEach(() => {
  ({ dir, cleanup } = tempDir('tenantform-faults-'));
  children = new Children();
});
afterEach(async () => {
  await children.killAll();
  await emulator?.stop();
  emulator = undefined;
  cleanup();
});

/** A run ended as the CLI promises: exit 0, or exit 1 with the counts report; no crash, no hang. */
function expectOrderlyEnd(run: ChildResult): void {
  expect(run.timedOut, 'the apply hung').toBe(false);
  expect(run.signal).toBeNull();
  expect(run.stderr).not.toMatch(INTERNAL_ERROR);
  expect([0, 1]).toContain(run.code);
  if (run.code === 1) expect(run.stderr).toMatch(PARTIAL_REPORT);
}

describe('apply under faults ends orderly and a follow-up converges', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const chaos = new ChaosSwitch(scenario.seed, scenario.clockSpeed);
    const trap = new RequestTrap();
    emulator = await startEmulator(scenario.options(chaos, trap));
    const random = seededRandom(scenario.seed);
    const configPath = join(dir, 'tenant.yaml');
    const statePath = join(dir, 'state.json');
    const args = [
      'apply',
      configPath,
      '--auto-approve',
      '--base-url',
      emulator.baseUrl,
      '--state',
      statePath,
      '--parallelism',
      '4',
      '--batch-size',
      '2',
    ];
    const env = childEnv(scenario.credentials(emulator));
    const run = () => children.run(args, { cwd: dir, env, timeoutMs: RUN_LIMIT_MS });

    const base = buildConfig(random, 'base', scenario.sizes);
    if (scenario.baseline) {
      writeConfig(configPath, base);
      const clean = await run();
      expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: '' });
    }
    const target = scenario.baseline ? evolveConfig(random, base, 'next', scenario.sizes) : base;
    writeConfig(configPath, target);

    const before = emulator.stats();
    chaos.on = true;
    const stopNoise = scenario.noise?.(emulator, trap);
    const faulty = await run();
    await stopNoise?.();
    chaos.on = false;
    expectOrderlyEnd(faulty);
    const after = emulator.stats();
    const delta: EmulatorStats = {
      requests: after.requests - before.requests,
      byRoute: {},
      byStatus: Object.fromEntries(
        Object.entries(after.byStatus).map(([k, v]) => [k, v - (before.byStatus[k] ?? 0)]),
      ),
    };
    expect(
      scenario.evidence(delta),
      `no fault of this kind happened: ${JSON.stringify(delta.byStatus)}`,
    ).toBeGreaterThan(0);

    const followUp = await run();
    expect(followUp.stderr).toBe('');
    expect(followUp.code).toBe(0);
    const snapshot = emulator.snapshot();
    expect(tenantContent(snapshot)).toEqual(expectedContent(target));
    const { problems, adopted } = stateProblems(readStateFile(statePath), target, snapshot);
    expect(problems).toEqual([]);
    expect(adopted).toBeLessThanOrEqual(scenario.maxAdopted(delta));

    const sent = emulator.requestCount();
    const idle = await run();
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain('No changes');
    expect(emulator.requestCount()).toBe(sent);
  });
});
