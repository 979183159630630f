/**
 * A closed output during apply (the built CLI, a child process): the reader
 * of its stdout goes away, as with `| head`, or takes Ctrl+C with it, as with
 * `| tee`. The run never exits 0 and never leaves the lock: it stops sending
 * as for Ctrl+C, records the answers in flight, and its summary goes to the
 * stream that still works.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { childEnv, useTrappedEmulator } from './harness.js';
import { adoptedCount, policiesConfig } from './store-failure.js';

const t = useTrappedEmulator('tenantform-closed-output-', 20);

function applyArgs(extra: string[] = []) {
  const config = join(t.dir, 'tenant.yaml');
  policiesConfig(config, 60);
  const statePath = join(t.dir, 'state', 'state.json');
  const args = ['apply', config, '--auto-approve', '--base-url', t.emulator.baseUrl, '--state', statePath];
  const child = t.children.start([...args, '--parallelism', '4', ...extra], {
    cwd: t.dir,
    env: childEnv({ TENANTFORM_TOKEN: t.emulator.token }),
  });
  return { args, statePath, child };
}

/** The re-run adopts nothing: every create the tenant acknowledged was recorded. */
async function expectEverythingRecorded(args: string[]) {
  const again = await runCli(args, { cwd: t.dir, env: { TENANTFORM_TOKEN: t.emulator.token } });
  expect(again.code, again.stderr).toBe(0);
  expect(adoptedCount(again)).toBe(0);
  expect(t.emulator.snapshot().rateLimitPolicies).toHaveLength(60);
}

describe('apply whose output is closed', () => {
  it('| head before anything is sent: exit 141, nothing sent, the summary on stderr, the lock released', async () => {
    const { args, statePath, child } = applyArgs();
    child.process.stdout!.destroy(); // the reader is gone before the first line
    const result = await child.result;
    expect(result.code, result.stderr).toBe(141);
    expect(result.stderr).toMatch(/^Apply incomplete: no change was made\.$/m);
    expect(result.stderr).toMatch(/^0 done, 0 failed, 60 not attempted\.$/m);
    expect(result.stderr).toMatch(
      /^Stopped: standard output was closed \(its reader went away\): no new request was sent after that;/m,
    );
    expect(t.emulator.snapshot().rateLimitPolicies).toHaveLength(0);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    await expectEverythingRecorded(args);
  }, 60_000);

  it('--json | head mid-apply: the creates in flight are recorded, exit 141, the lock released', async () => {
    const { args, statePath, child } = applyArgs(['--json']);
    // The reader goes away once the first create is done, with others in flight.
    child.process.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"type":"done"')) child.process.stdout!.destroy();
    });
    const result = await child.result;
    expect(result.code, result.stderr).toBe(141);
    // The summary line went to stderr, the stream that still works.
    expect(result.stderr).toMatch(/^\{"type":"summary","complete":false,/m);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    const recorded = JSON.parse(readFileSync(statePath, 'utf8')) as { resources: unknown[] };
    expect(recorded.resources.length).toBeGreaterThan(0);
    expect(recorded.resources.length).toBe(t.emulator.snapshot().rateLimitPolicies.length);
    await expectEverythingRecorded(args);
  }, 60_000);

  it('Ctrl+C under | tee (the pipe closes with the same keystroke): the summary on stderr, exit 130', async () => {
    const { args, statePath, child } = applyArgs();
    t.trap.arm(12, () => {
      child.process.kill('SIGINT');
      child.process.stdout!.destroy();
    });
    const result = await child.result;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^Apply incomplete: \d+ created\.$/m);
    expect(result.stderr).toMatch(/^Interrupted: no new request was sent after the signal/m);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    await expectEverythingRecorded(args);
  }, 60_000);
});
