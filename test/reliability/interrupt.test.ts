/**
 * Ctrl+C during apply (the built CLI, a child process): SIGINT stops new
 * requests, the requests in flight finish and are recorded, the summary
 * prints with an "Interrupted" line, the exit code is 130 and the lock is
 * released; a second Ctrl+C while stopping does not leave the lock behind.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { childEnv, useTrappedEmulator } from './harness.js';
import { adoptedCount, policiesConfig } from './store-failure.js';

const t = useTrappedEmulator('tenantform-interrupt-', 20);

describe('Ctrl+C as the process ends', () => {
  // Node closes its signal handlers on its way out when the event loop runs dry:
  // a Ctrl+C then killed the process by the signal (no exit code). It must end
  // with 130 (a handler ran) or its own code, however late the signal comes.
  it('never kills the process: it exits 130 or with its own code, ten runs in a row', async () => {
    const config = join(t.dir, 'tenant.yaml');
    policiesConfig(config, 1);
    const outcomes: (number | string)[] = [];
    for (let run = 0; run < 10; run++) {
      const child = t.children.start(['validate', config], { cwd: t.dir, env: childEnv() });
      // From its first output on (it prints just before it ends), a signal every millisecond.
      child.process.stdout!.once('data', () => {
        const timer = setInterval(() => child.process.kill('SIGINT'), 1);
        child.process.once('exit', () => clearInterval(timer));
      });
      const result = await child.result;
      outcomes.push(result.code ?? String(result.signal));
    }
    expect(outcomes.filter((o) => o !== 0 && o !== 130)).toEqual([]);
  }, 120_000);
});

describe('apply interrupted with SIGINT', () => {
  it.each([1, 2])(
    '%i Ctrl+C: exit 130, an interrupted line, the lock released',
    async (presses) => {
      const config = join(t.dir, 'tenant.yaml');
      policiesConfig(config, 60);
      const statePath = join(t.dir, 'state', 'state.json');
      const args = [
        'apply',
        config,
        '--auto-approve',
        '--base-url',
        t.emulator.baseUrl,
        '--state',
        statePath,
      ];
      const child = t.children.start([...args, '--parallelism', '4'], {
        cwd: t.dir,
        env: childEnv({ TENANTFORM_TOKEN: t.emulator.token }),
      });
      t.trap.arm(12, () => {
        void (async () => {
          for (let i = 0; i < presses; i++) {
            child.process.kill('SIGINT');
            await delay(30);
          }
        })();
      });
      const result = await child.result;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stdout).toMatch(/Apply incomplete: \d+ created\./);
      expect(result.stderr).toMatch(/^Interrupted: no new request was sent/m);
      expect(result.stderr).toMatch(/\d+ done, 0 failed, \d+ not attempted/);
      expect(existsSync(`${statePath}.lock`)).toBe(false);
      // Nothing sent after the signal went unrecorded: the re-run adopts nothing.
      const again = await runCli(args, { cwd: t.dir, env: { TENANTFORM_TOKEN: t.emulator.token } });
      expect(again.code).toBe(0);
      expect(adoptedCount(again)).toBe(0);
      expect(t.emulator.snapshot().rateLimitPolicies).toHaveLength(60);
    },
    60_000,
  );
});
