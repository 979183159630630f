/**
 * Output that scales: apply --auto-approve of 300 creates against the
 * emulator prints one line per change and a progress line per tenth, not the
 * attributes of every policy and a line per request (about 3,090 lines
 * before); --verbose brings the detail back.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  emulator = await startEmulator();
  mkdirSync(join(dir, 'config'));
  const entries = Array.from(
    { length: 300 },
    (_, i) =>
      `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: client_id:app${String(i).padStart(3, '0')}\n    configuration:\n      action: block\n      limit: ${i + 1}\n`,
  );
  writeFileSync(join(dir, 'config', 'policies.yaml'), `rate_limit_policies:\n${entries.join('')}`);
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

function apply(...extra: string[]) {
  return runCli(['apply', 'config', '--auto-approve', '--base-url', emulator.baseUrl, ...extra], {
    cwd: dir,
    env: { TENANTFORM_TOKEN: emulator.token },
  });
}

const lines = (text: string) => text.split('\n').length - 1;

describe('apply output of 300 creates', () => {
  it('is about a line per change, and says where the detail is', async () => {
    const run = await apply();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('300 changes, one line each (more than 50): --verbose shows');
    expect(run.stdout).toContain('150/300 done (');
    expect(run.stdout).toContain('Apply complete: 300 created.');
    expect(run.stdout).not.toContain('limit: 17');
    expect(lines(run.stdout)).toBeLessThan(330);
  });

  it('--verbose prints every policy’s attributes and a line per request', async () => {
    const run = await apply('--verbose');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('limit: 17');
    expect(run.stdout).toContain(
      'rate_limit_policy["oauth_authentication_api","client","client_id:app017"]: created',
    );
    expect(lines(run.stdout)).toBeGreaterThan(2_500);
  });
});
