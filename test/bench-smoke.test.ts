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
import { loadConfig } from '../src/config/index.js';
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
