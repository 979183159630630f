/**
 * Messages made below src/cli name settings as data; the command line names
 * them by their flags, byte for byte as before the words moved up (issue 36):
 * an unset variable (plan, validate --format json, which shows the issue
 * without its wording), and a certificate no trusted CA vouches for (the
 * emulator's --tls), in the apply summary and the wait line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const work = tempDir('tf-flag-words-');
afterAll(() => work.cleanup());

const POLICY =
  'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n' +
  '    consumer_selector: client_id:${CLIENT}\n    configuration: { action: block, limit: 10 }\n';
const UNSET =
  'variable CLIENT is not set: pass --var CLIENT=VALUE, put it in a --var-file, or set TENANTFORM_VAR_CLIENT';

describe('an unset variable', () => {
  beforeAll(() => writeFileSync(join(work.dir, 'policy.yaml'), POLICY));

  it('plan names the flags that set one', async () => {
    const run = await runCli(['plan', 'policy.yaml', '--state', 's.json'], { cwd: work.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`policy.yaml:4:34: ${UNSET}\n1 error.\n`);
  });

  it('validate --format json shows the issue in the same words, without its wording', async () => {
    const run = await runCli(['validate', 'policy.yaml', '--format', 'json'], { cwd: work.dir });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as { errors: Record<string, unknown>[] };
    expect(doc.errors).toEqual([
      { file: 'policy.yaml', line: 4, col: 34, message: UNSET, code: 'VAR_UNRESOLVED' },
    ]);
    expect(Object.keys(doc.errors[0]!)).toEqual(['file', 'line', 'col', 'message', 'code']);
  });
});

describe('a certificate of a CA this process does not trust', () => {
  let emulator: EmulatorHandle;
  beforeAll(async () => {
    emulator = await startEmulator({ tls: true });
    return () => emulator.stop();
  });

  it('apply names the emulator flag that made it, in the failure and the wait line', async () => {
    const hint =
      'TLS certificate cannot be verified, UNABLE_TO_VERIFY_LEAF_SIGNATURE (to trust a private CA, such as ' +
      'that of tenantform emulator --tls, put its file in NODE_EXTRA_CA_CERTS)';
    const run = await runCli(
      ['apply', 'policy.yaml', '--auto-approve', '--var', 'CLIENT=x', '--state', 'tls.json'],
      { cwd: work.dir, env: { TENANTFORM_BASE_URL: emulator.baseUrl, TENANTFORM_TOKEN: emulator.token } },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `failed: Cannot reach the tenant at ${emulator.baseUrl}: ${hint}, after 4 attempts`,
    );
    expect(run.stdout).toContain(`last: ${hint}; retrying`);
  });
});
