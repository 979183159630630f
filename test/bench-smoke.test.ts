/**
 * The benchmark's fixtures are what they claim to be: a valid config of the
 * requested size and mix, and a valid state half in sync with it. No timing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addressOf,
  buildState,
  generateResources,
  kindCounts,
  policyAt,
  writeConfig,
} from '../bench/generate.mjs';
import {
  DATE_VARIANTS,
  maxRateMissing,
  MINUTE_SCALE,
  pooled,
  nominalFloorS,
  offersMaxRate,
  runWindowCell,
  WINDOW_CELLS,
  windowFloorMs,
} from '../bench/window-scenarios.mjs';
import { terraformState } from '../bench/export-scenarios.mjs';
import { loadConfig } from '../src/config/index.js';
import { readTerraformState } from '../src/config/from-terraform.js';
import { planChanges } from '../src/plan/index.js';
import { formatAddress } from '../src/resources/index.js';
import { checkSchema } from '../src/schemas/index.js';
import { startEmulator } from '../src/emulator/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tf-bench-smoke-'));
  dirs.push(dir);
  return dir;
}

describe('bench config generator', () => {
  it.each([10, 1000, 4500])('writes a valid config of exactly %i resources', async (total) => {
    const dir = tempDir();
    writeConfig(dir, generateResources(total));
    const result = await loadConfig(dir);
    expect(result.issues).toEqual([]);
    expect(result.desired).toHaveLength(total);
    const counts = kindCounts(total);
    expect(result.counts).toMatchObject({
      rate_limit_policies: counts.policies,
      user_permissions: counts.permissions,
      token_exchange_profiles: counts.profiles,
    });
  });

  it('splits a large config over several files', () => {
    const files = writeConfig(tempDir(), generateResources(10_000));
    expect(files.length).toBeGreaterThan(3);
  });

  it('writes addresses the way the resources module formats them', () => {
    const policy = generateResources(10).policies[0]!;
    expect(addressOf('rate_limit_policy', policy)).toBe(
      formatAddress('rate_limit_policy', [policy.resource, policy.consumer, policy.consumer_selector]),
    );
  });
});

describe('bench state generator', () => {
  it('builds a state document the schema accepts', () => {
    const state = buildState(generateResources(500), { stale: 10 });
    expect(checkSchema('state', state)).toEqual([]);
  });

  it('leaves half of the config in sync and plans creates, replaces and deletes for the rest', async () => {
    const dir = tempDir();
    const resources = generateResources(1000);
    writeConfig(dir, resources);
    const { desired } = await loadConfig(dir);
    const plan = planChanges(desired, buildState(resources, { inSync: 0.5, stale: 20 }));
    expect(plan.summary).toEqual({
      create: 480,
      update: 0,
      replace: 20,
      delete: 20,
      forget: 0,
      blocked: 0,
      no_op: 500,
    });
  });
});

describe('bench/cli-entry.mjs (the durability figure runs apply through it)', () => {
  it.each(['1', '0'])('applies and records everything with BENCH_JOURNAL_FSYNC=%s', async (fsync) => {
    const dir = tempDir();
    writeConfig(dir, { policies: [policyAt(0), policyAt(1)], profiles: [], permissions: [] });
    const emulator = await startEmulator({});
    try {
      const statePath = join(dir, 'state.json');
      const stats = join(dir, 'sync-stats.json');
      const args = ['apply', dir, '--state', statePath, '--auto-approve', '--base-url', emulator.baseUrl];
      await promisify(execFile)(process.execPath, ['bench/cli-entry.mjs', ...args], {
        env: {
          ...process.env,
          TENANTFORM_TOKEN: emulator.token,
          BENCH_JOURNAL_FSYNC: fsync,
          BENCH_SYNC_STATS: stats,
        },
      });
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as { resources: unknown[] };
      expect(state.resources).toHaveLength(2);
      // The journal's fsyncs, timed: at least one for two records when synced, none when not.
      const synced = JSON.parse(readFileSync(stats, 'utf8')) as { count: number; p50Ms: number };
      if (fsync === '1') expect(synced.count).toBeGreaterThanOrEqual(1);
      else expect(synced).toMatchObject({ count: 0, p50Ms: 0 });
    } finally {
      await emulator.stop();
    }
  });
});

describe('the documented-model rows (bench/window-scenarios.mjs)', () => {
  const T = 1_700_000_000_000;

  it.each([
    // burst 10, 2 per 1 s window: 90 more need 45 boundaries after the first request's window.
    [{ burst: 10, perWindow: 2, windowSec: 1 }, 100, T + 400, 44_600],
    [{ burst: 10, perWindow: 2, windowSec: 1 }, 100, T, 45_000],
    // A rate above the burst adds only the burst: 250 more at 10 a window.
    [{ burst: 10, perWindow: 25, windowSec: 1 }, 260, T + 999, 24_001],
    // 5 s windows aligned on the tenant clock: T is 20 s into a minute, so on a 5 s boundary.
    [{ burst: 40, perWindow: 500, windowSec: 5 }, 280, T + 3_000, 27_000],
    // A true 60 s window: 80 more at 40 a minute, the first request 23 s into a minute.
    [{ burst: 40, perWindow: 500, windowSec: 60 }, 120, T + 3_000, 97_000],
    // Everything fits in the burst: no wait at all.
    [{ burst: 50, perWindow: 16, windowSec: 1 }, 50, T + 123, 0],
  ])('floors %j, N=%i, first request at %i: %i ms', (shape, n, first, floor) => {
    expect(windowFloorMs(shape, n, first)).toBe(floor);
  });

  it('covers the published tiers, a rate above the burst, a 3-second, a scaled and a true 60-second window, each 20–60 s (120 s for a minute) with N ≥ 100', () => {
    const tiers = WINDOW_CELLS.map((c) => c.limit.tier).filter(Boolean);
    expect(tiers).toEqual(['free', 'enterprise-nonprod', 'enterprise-prod', 'private-cloud-20']);
    expect(WINDOW_CELLS.some((c) => (c.limit.perSecond ?? 0) > (c.limit.burst ?? Infinity))).toBe(true);
    expect(WINDOW_CELLS.some((c) => c.limit.windowSec === 60 / MINUTE_SCALE)).toBe(true);
    expect(WINDOW_CELLS.some((c) => c.limit.windowSec === 3)).toBe(true);
    expect(WINDOW_CELLS.some((c) => c.limit.windowSec === 60)).toBe(true);
    for (const cell of WINDOW_CELLS) {
      expect(cell.n).toBeGreaterThanOrEqual(100);
      expect(nominalFloorS(cell)).toBeGreaterThanOrEqual(20);
      expect(nominalFloorS(cell)).toBeLessThanOrEqual(cell.limit.windowSec === 60 ? 120 : 60);
    }
  });

  it('runs a cell through the built CLI on a skewed clock: nothing fails and the HTTP phase is never under its floor', async () => {
    const work = tempDir();
    const cell = { name: 'tiny', limit: { perSecond: 3, burst: 4 }, n: 7 };
    const r = await runWindowCell(work, cell, { clockSkewMs: 1500 });
    expect(r).toMatchObject({ code: 0, failed: 0, recorded: 7, accepted: 7 });
    expect(r.floorMs).toBeGreaterThan(0);
    // The limiter admits the last request no earlier than the floor's boundary: a bound, not a timing.
    expect(r.httpRatio).toBeGreaterThanOrEqual(1);
  });

  it('runs a cell on the docs-only limiter too, and every Date variant on each', async () => {
    const work = tempDir();
    const cell = { name: 'tiny', limit: { perSecond: 3, burst: 4 }, n: 7 };
    const r = await runWindowCell(work, cell, { server: 'docs', options: { date: 'absent' } });
    expect(r).toMatchObject({ code: 0, failed: 0, recorded: 7, accepted: 7 });
    expect(r.httpRatio).toBeGreaterThanOrEqual(1);
    const on = (server: string) => DATE_VARIANTS.filter((v) => v.server === server).map((v) => v.name);
    expect(on('emulator')).toHaveLength(5);
    expect(on('docs')).toEqual(["Node's own", 'exact', 'absent', 'exact, front end 0.8 s behind']);
  });

  it('runs cells at most N at once, results in order', async () => {
    let running = 0;
    let most = 0;
    const task = (i: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return i;
    };
    expect(await pooled([0, 1, 2, 3, 4].map(task), 2)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('tells whether apply offers --max-rate, and prints a note rather than a failure when it does not', () => {
    expect(offersMaxRate('  --max-rps <N>  requests per second at most')).toBe(false);
    expect(offersMaxRate('  --max-rate <PERCENT%>  share of the sustained rate')).toBe(true);
    const [row] = maxRateMissing();
    expect(row).toMatchObject({ value: null, pass: null });
    expect(row!.note).toContain('no --max-rate');
  });
});

describe('the export benchmark', () => {
  it('reads its Terraform state as that many rate limit policies, with their ids', () => {
    const read = readTerraformState(JSON.stringify(terraformState(50)), 'bench.tfstate');
    expect(read.issues).toEqual([]);
    expect(read.resources).toHaveLength(50);
    expect(new Set(read.resources.map((r) => r.address)).size).toBe(50);
  });
});
