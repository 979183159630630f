/**
 * Issue 35, item 4: terminal escapes from tenant data. Every value read from
 * the tenant or a state (an application's name, a live profile's name, a
 * recorded attribute) is printed with its control characters escaped (C0,
 * C1, ESC, BEL, line breaks, bidi overrides such as U+202E), in text and in
 * Markdown: explain --all-clients, plan --refresh, refresh, state list and
 * show.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

/** Any character a terminal acts on, a line break aside (the output's own lines). */
const RAW =
  // eslint-disable-next-line no-control-regex -- the control characters are what it looks for
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

const ACTION = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
const HOSTILE_APP = 'Shop\u001b[31m red\u0007\u202Eevil\nForged: line';
const HOSTILE_NAME = 'Partner\u001b]0;pwned\u0007 \u009b31m\u202Eeman';

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };

beforeEach(async () => {
  work = tempDir('tenantform-escapes-');
  const seed = referenceSeed({ clients: ['web-app'], actions: [ACTION] });
  seed.clients![0]!.name = HOSTILE_APP;
  emulator = await startEmulator({ api: 'full', seed });
  mkdirSync(join(work.dir, 'tenant'));
  writeFileSync(
    join(work.dir, 'tenant', 'tenant.yaml'),
    'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: client_id:web-app\n    configuration: { action: block, limit: 100 }\n' +
      `token_exchange_profiles:\n  - name: Partner SSO\n    subject_token_type: urn:partner:sso\n    action_id: ${ACTION}\n    type: custom_authentication\n`,
  );
});
afterEach(async () => {
  await emulator.stop();
  work.cleanup();
});

const cli = (...args: string[]) =>
  runCli(args, {
    cwd: work.dir,
    env: { TENANTFORM_TOKEN: emulator.token, TENANTFORM_BASE_URL: emulator.baseUrl },
  });

function expectPrintable(run: { stdout: string; stderr: string }, what: string): void {
  expect(RAW.exec(run.stdout)?.[0], `${what}: stdout`).toBeUndefined();
  expect(RAW.exec(run.stderr)?.[0], `${what}: stderr`).toBeUndefined();
}

describe('values from the tenant and the state, printed', () => {
  it('explain --all-clients shows an application name with its escapes escaped, text and Markdown', async () => {
    for (const format of ['text', 'markdown']) {
      const run = await cli('explain', 'tenant', '--all-clients', '--api', 'full', '--format', format);
      expect(run.code, run.stderr).toBe(0);
      expectPrintable(run, `explain ${format}`);
      // In Markdown the escape's backslash and bracket are escaped once more, for the table cell.
      expect(run.stdout).toContain(
        format === 'text' ? '\\u001b[31m red\\u0007\\u202eevil\\nForged: line' : '\\\\u001b\\[31m red',
      );
    }
  });

  it('plan --refresh, refresh, state list and show print a live name with its escapes escaped', async () => {
    expect((await cli('apply', 'tenant', '--auto-approve', '--api', 'full')).code).toBe(0);
    const live = emulator.snapshot();
    emulator.replaceState({
      ...live,
      tokenExchangeProfiles: live.tokenExchangeProfiles.map((p) => ({ ...p, name: HOSTILE_NAME })),
    });
    const runs = [
      ['plan --refresh', await cli('plan', 'tenant', '--refresh', '--api', 'full')],
      [
        'plan --refresh markdown',
        await cli('plan', 'tenant', '--refresh', '--api', 'full', '--format', 'markdown'),
      ],
      ['refresh', await cli('refresh', 'tenant', '--api', 'full')],
      ['state list', await cli('state', 'list', 'tenant')],
      ['show', await cli('show', 'tenant')],
      ['show markdown', await cli('show', 'tenant', '--format', 'markdown')],
    ] as const;
    for (const [what, run] of runs) {
      expect(run.code, `${what}: ${run.stderr}`).toBe(0);
      expectPrintable(run, what);
    }
    expect(runs[0][1].stdout).toContain('\\u009b31m\\u202eeman');
    expect(runs[4][1].stdout).toContain('\\u009b31m\\u202eeman');
  });
});
