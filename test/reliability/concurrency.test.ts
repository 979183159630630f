/**
 * Two `tenantform apply` processes on one state file at once. The t.emulator
 * holds the first API request until one process has exited, so the two runs
 * overlap however slowly either starts: exactly one proceeds, the other
 * fails at once naming the holder (pid, host, command) and sends nothing;
 * afterwards the state file is valid and lists every resource with its id.
 * With --lock-timeout the second waits for the first instead, then finds
 * nothing to do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

import { childEnv, type ChildResult, type RunningChild, useTrappedEmulator } from './harness.js';
import {
  buildConfig,
  expectedContent,
  resourceCount,
  seededRandom,
  stateProblems,
  tenantContent,
  writeConfig,
  type StateFile,
} from './tenant-config.js';

const HOLD_LIMIT_MS = 20_000;

const t = useTrappedEmulator('tenantform-race-', 2);

/** Holds the first request that reaches the t.emulator until `release` settles (bounded), then lets all through. */
function holdFirstRequest(release: () => Promise<unknown>): void {
  t.trap.before(1, async () => {
    t.trap.before(0, null);
    await Promise.race([release(), delay(HOLD_LIMIT_MS)]);
  });
}

function setup() {
  const config = buildConfig(seededRandom(5), 'race', {
    policies: 20,
    profiles: 5,
    users: 5,
    permissionsPerUser: 4,
  });
  const configPath = join(t.dir, 'tenant.yaml');
  const statePath = join(t.dir, 'state.json');
  writeConfig(configPath, config);
  const args = [
    'apply',
    configPath,
    '--auto-approve',
    '--base-url',
    t.emulator.baseUrl,
    '--state',
    statePath,
  ];
  const start = (extra: string[] = []): RunningChild =>
    t.children.start([...args, ...extra], {
      cwd: t.dir,
      env: childEnv({ TENANTFORM_TOKEN: t.emulator.token }),
    });
  return { config, statePath, start };
}

function expectIntactState(statePath: string, config: ReturnType<typeof setup>['config']): void {
  const text = readFileSync(statePath, 'utf8');
  const state = JSON.parse(text) as StateFile;
  expect(state.resources).toHaveLength(resourceCount(config));
  const snapshot = t.emulator.snapshot();
  expect(tenantContent(snapshot)).toEqual(expectedContent(config));
  expect(stateProblems(state, config, snapshot)).toEqual({ problems: [], adopted: 0 });
}

describe('two applies on one state', () => {
  it('lets one proceed; the other fails at once naming the lock holder and sends nothing', async () => {
    const { config, statePath, start } = setup();
    const a = start();
    const b = start();
    const exits: { pid: number; result: ChildResult }[] = [];
    const watch = (c: RunningChild) => c.result.then((result) => exits.push({ pid: c.pid, result }));
    const firstExit = Promise.race([watch(a), watch(b)]);
    holdFirstRequest(() => firstExit);
    await Promise.all([a.result, b.result]);

    const [loser, winner] = exits;
    expect(loser!.result.code, loser!.result.stderr).toBe(1);
    expect(winner!.result.code, winner!.result.stderr).toBe(0);
    expect(loser!.result.stderr).toMatch(
      new RegExp(`is locked by apply \\(pid ${winner!.pid} on host [^)]+\\) since \\d{4}-\\d\\d-\\d\\dT`),
    );
    expect(loser!.result.stderr).toContain('force-unlock');
    expect(loser!.result.stdout).toBe('');
    // Every request came from the winner: one per policy and profile, one per user.
    expect(t.emulator.requestCount()).toBe(
      config.rate_limit_policies.length +
        config.token_exchange_profiles.length +
        config.user_permissions.length,
    );
    expectIntactState(statePath, config);
  });

  it('with --lock-timeout, the second waits for the first and then finds nothing to do', async () => {
    const { config, statePath, start } = setup();
    const first = start();
    // Hold the first apply's first request (it holds the lock by then) while the second starts and waits.
    let second: RunningChild | undefined;
    holdFirstRequest(async () => {
      second = start(['--lock-timeout', '60s']);
      await delay(1_000);
    });
    const one = await first.result;
    expect(one.code, one.stderr).toBe(0);
    expect(second).toBeDefined();
    const two = await second!.result;
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toContain('No changes');
    expect(t.emulator.requestCount()).toBe(
      config.rate_limit_policies.length +
        config.token_exchange_profiles.length +
        config.user_permissions.length,
    );
    expectIntactState(statePath, config);
  });
});
