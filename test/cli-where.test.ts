import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const POLICY = `
rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
`;

let dir: string;
let cleanup: () => void;
let emulator: EmulatorHandle;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  for (const sub of ['common', 'prod']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'common', 'policies.yaml'), POLICY);
  writeFileSync(join(dir, 'prod', 'empty.yaml'), '');
  emulator = await startEmulator();
});

afterEach(async () => {
  await emulator.stop();
  cleanup();
});

const env = () => ({ TENANTFORM_TOKEN: emulator.token });
/** The directory of the emulator's states below .tenantform/ (one per target). */
const scope = () => new URL(emulator.baseUrl).host.replace(':', '_');

describe('plan and apply say what they act on', () => {
  it('plan starts with the state location and the target, and the state follows the last path', async () => {
    const a = await runCli(['plan', 'common', 'prod'], { cwd: dir, env: env() });
    expect(a.code).toBe(0);
    expect(a.stderr.split('\n').slice(0, 2)).toEqual([
      'State:  prod/.tenantform/state.json',
      'Target: not set (apply takes --domain or --base-url, or TENANTFORM_DOMAIN or TENANTFORM_BASE_URL)',
    ]);
    const b = await runCli(['plan', 'prod', 'common'], {
      cwd: dir,
      env: { ...env(), TENANTFORM_BASE_URL: emulator.baseUrl },
    });
    expect(b.stderr.split('\n').slice(0, 2)).toEqual([
      `State:  common/.tenantform/${scope()}/state.json`,
      `Target: ${emulator.baseUrl}`,
    ]);
  });

  it('warns when the state does not exist yet, and not once it does', async () => {
    const first = await runCli(['plan', 'common', 'prod'], { cwd: dir, env: env() });
    expect(first.stderr).toContain(
      'Warning: no state at prod/.tenantform/state.json yet, so every resource is planned as new.',
    );
    const applied = await runCli(
      ['apply', 'common', 'prod', '--auto-approve', '--base-url', emulator.baseUrl],
      {
        cwd: dir,
        env: env(),
      },
    );
    expect(applied.code).toBe(0);
    expect(applied.stdout.split('\n').slice(0, 2)).toEqual([
      `State:  prod/.tenantform/${scope()}/state.json`,
      `Target: ${emulator.baseUrl}`,
    ]);
    expect(applied.stdout).toContain(`Warning: no state at prod/.tenantform/${scope()}/state.json yet`);
    const again = await runCli(['plan', 'common', 'prod'], { cwd: dir, env: env() });
    expect(again.stderr).not.toContain('Warning');
    expect(again.stdout).toContain('No changes.');
  });

  it('puts the header on stderr in every format, so that stdout stays the plan alone', async () => {
    const text = await runCli(['plan', 'common', 'prod'], { cwd: dir, env: env() });
    expect(text.stdout.startsWith('Symbols: + create')).toBe(true);
    const json = await runCli(['plan', 'common', 'prod', '--format', 'json'], { cwd: dir, env: env() });
    expect(() => JSON.parse(json.stdout) as unknown).not.toThrow();
    expect(json.stderr).toMatch(/^State: {2}prod\/\.tenantform\/state\.json\n/);
    const md = await runCli(['plan', 'common', 'prod', '--format', 'markdown'], { cwd: dir, env: env() });
    expect(md.stdout.startsWith('### tenantform plan')).toBe(true);
    expect(md.stderr).toContain('Warning: no state at');
  });

  it('checks the target even when apply has nothing to do', async () => {
    const empty = await runCli(['apply', 'prod', '--auto-approve', '--base-url', 'not a url'], {
      cwd: dir,
      env: env(),
    });
    expect(empty.stderr).toContain('--base-url is not a valid URL: "not a url"');
    expect(empty.code).toBe(1);
    const v1 = await runCli(
      ['apply', 'prod', '--auto-approve', '--base-url', 'http://127.0.0.1:4000/api/v1'],
      {
        cwd: dir,
        env: env(),
      },
    );
    expect(v1.code).toBe(1);
    expect(v1.stderr).toContain('or an origin alone, to which /api/v2 is added');
    const origin = await runCli(
      ['apply', 'prod', '--auto-approve', '--base-url', new URL(emulator.baseUrl).origin],
      {
        cwd: dir,
        env: env(),
      },
    );
    expect(origin.code).toBe(0);
    expect(origin.stdout).toContain(`Target: ${emulator.baseUrl}\n`);
  });
});
