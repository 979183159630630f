/**
 * A crash while the state is locked (issue 16, defect 3): an uncaught
 * exception or an unhandled rejection in the CLI's process releases the lock
 * on the way out, so the next run needs no force-unlock. The child runs the
 * built CLI (dist/) through main(), as bin/tenantform.js does, and crashes
 * from a timer once the lock is taken while the apply waits on the emulator.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { tempDir } from './helpers/cli.js';
import { assertBuilt, REPO } from './reliability/harness.js';

const CHILD = `
import { existsSync } from 'node:fs';
const { main } = await import(process.env.MAIN_MODULE);
const lock = process.env.STATE + '.lock';
const poll = setInterval(() => {
  if (!existsSync(lock)) return;
  clearInterval(poll);
  if (process.env.CRASH === 'throw') setTimeout(() => { throw new Error('boom from a timer'); });
  else Promise.reject(new Error('boom from a promise'));
}, 10);
main(['node', 'tenantform', ...JSON.parse(process.env.ARGS)]).then((code) => { process.exitCode = code; });
`;

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

beforeAll(assertBuilt);
beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  // Every answer waits: the apply is still holding the lock when the child crashes.
  emulator = await startEmulator({ latencyMs: 30_000 });
});
afterEach(async () => {
  await emulator.stop();
  cleanup();
});

function runCrashing(crash: 'throw' | 'reject'): Promise<{ code: number | null; stderr: string }> {
  const config = join(dir, 'tenant.yaml');
  writeFileSync(
    config,
    'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 10 }\n',
  );
  const state = join(dir, 'state', 'state.json');
  const args = ['apply', config, '--auto-approve', '--base-url', emulator.baseUrl, '--state', state];
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      TENANTFORM_TOKEN: emulator.token,
      MAIN_MODULE: pathToFileURL(join(REPO, 'dist', 'cli', 'main.js')).href,
      STATE: state,
      ARGS: JSON.stringify(args),
      CRASH: crash,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('a crash while the state is locked', () => {
  it.each([
    ['an uncaught exception', 'throw', 'boom from a timer'],
    ['an unhandled rejection', 'reject', 'boom from a promise'],
  ] as const)('releases the lock on %s and exits 70', async (_name, crash, message) => {
    const { code, stderr } = await runCrashing(crash);
    expect(stderr).toContain(`Error (internal, please report): Error: ${message}`);
    expect(stderr).toContain('The state lock was released; run the command again to continue.');
    expect(code).toBe(70);
    expect(existsSync(join(dir, 'state', 'state.json.lock'))).toBe(false);
  });
});
