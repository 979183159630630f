/**
 * A config written in JSON style (JSON is YAML, and validate and plan accept
 * it) must be applied like any other config, not mistaken for a saved plan
 * because it starts with "{".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { buildConfig, seededRandom } from './tenant-config.js';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-json-'));
  emulator = await startEmulator();
  const config = buildConfig(seededRandom(4), 'json', {
    policies: 2,
    profiles: 1,
    users: 1,
    permissionsPerUser: 1,
  });
  writeFileSync(join(dir, 'tenant.yaml'), JSON.stringify(config, null, 2) + '\n');
});
afterEach(async () => {
  await emulator.stop();
  cleanup();
});

describe('a config written in JSON style', () => {
  it('is valid and plans', async () => {
    expect((await runCli(['validate', 'tenant.yaml'], { cwd: dir })).code).toBe(0);
    const plan = await runCli(['plan', 'tenant.yaml', '--state', 'state.json'], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 4 to create');
  });

  it('applies', async () => {
    const result = await runCli(
      ['apply', 'tenant.yaml', '--auto-approve', '--base-url', emulator.baseUrl, '--state', 'state.json'],
      { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
