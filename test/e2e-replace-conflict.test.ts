/**
 * A replace whose create answers 409 (someone made the same policy between
 * tenantform's delete and its create): the summary and the progress line say
 * that the delete was sent, not only that something was adopted.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';
import { writeFileSync } from 'node:fs';

const policy = (limit: number) =>
  `rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: ${limit} }\n`;

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };
/** Runs before the next request the emulator handles, once. */
let beforeNext: (() => void) | null = null;

beforeEach(async () => {
  work = tempDir();
  // The latency hook runs before each request is handled (latencyMs 1: it is called at all).
  emulator = await startEmulator({
    latencyMs: 1,
    sleep: async () => {
      const run = beforeNext;
      beforeNext = null;
      run?.();
    },
  });
});
afterEach(async () => {
  await emulator.stop();
  work.cleanup();
});

describe('a replace whose create answers 409', () => {
  it('reports the delete it sent and the adoption, not only "1 adopted"', async () => {
    const config = join(work.dir, 'tenant.yaml');
    const cli = (...args: string[]) =>
      runCli([...args, '--base-url', emulator.baseUrl], {
        cwd: work.dir,
        env: { TENANTFORM_TOKEN: emulator.token },
      });
    writeFileSync(config, policy(10));
    expect((await cli('apply', config, '--auto-approve')).code).toBe(0);

    writeFileSync(config, policy(20));
    // The DELETE comes first; before it is handled, arrange that someone re-creates the policy after it.
    beforeNext = () => {
      beforeNext = () =>
        void emulator.replaceState({
          rateLimitPolicies: [
            {
              resource: 'oauth_authentication_api',
              consumer: 'client',
              consumer_selector: 'default',
              configuration: { action: 'log', limit: 99 },
            },
          ],
        });
    };
    const run = await cli('apply', config, '--auto-approve');
    expect(run.code, run.stderr).toBe(0);
    const address = 'rate_limit_policy["oauth_authentication_api","client","default"]';
    expect(run.stdout).toContain(
      `${address}: deleted, then already present when created again (409; adopted; settings not verified, no read operation exists)`,
    );
    expect(run.stdout).toMatch(
      /^Apply complete: 1 deleted, then adopted \(the create after the delete answered 409; settings NOT verified\)\.$/m,
    );
  });
});
