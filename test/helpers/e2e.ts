/**
 * The set-up of the end-to-end files that run the CLI in-process against the
 * emulator: every test gets a fresh temporary directory holding a config/
 * folder with the given files, and a fresh emulator on 127.0.0.1; both are
 * removed after the test. Also the resources those files declare alike.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index.js';
import { scopeDirectory } from '../../src/run/state-location.js';
import { runCli, tempDir, type CliRun } from './cli.js';
import { referenceSeed } from './reference-seed.js';

/** The Action of PARTNER_PROFILE, which an emulator with API profile full must have (PARTNER_REFERENCES). */
export const PARTNER_ACTION = '6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c';

/** A seed (emulator option `seed`) giving a full-profile tenant PARTNER_PROFILE's Action, deployed and bound to custom-token-exchange. */
export const PARTNER_REFERENCES = referenceSeed({ actions: [PARTNER_ACTION] });

/** A token exchange profile (subject token type urn:partner:legacy-token), as config YAML. */
export const PARTNER_PROFILE = `token_exchange_profiles:
  - name: Partner SSO
    subject_token_type: urn:partner:legacy-token
    action_id: ${PARTNER_ACTION}
    type: custom_authentication
`;

/** The default state file of the config directory `configDir` applied to `baseUrl` (src/run/state-location.ts). */
/** POSTs a JSON body to the emulator with its demo token; anything but a 2xx throws. */
export async function postToEmulator(emulator: EmulatorHandle, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${emulator.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

export function defaultStateFile(configDir: string, baseUrl: string): string {
  return join(configDir, '.tenantform', scopeDirectory({ env: null, target: baseUrl })!, 'state.json');
}

export interface EmulatorWorkspace {
  /** This test's emulator. */
  readonly emulator: EmulatorHandle;
  /** This test's directory, the CLI's working directory; the config is in config/. */
  readonly dir: string;
  /** Writes config/NAME. */
  write(name: string, text: string): void;
  /** Runs the CLI in `dir` with the emulator's token (and no other environment). */
  cli(...args: string[]): Promise<CliRun>;
  /**
   * Creates the "default" rate limit policy with `configuration` directly on
   * the emulator, as someone outside tenantform would.
   */
  createDefaultPolicy(configuration: Record<string, unknown>): Promise<Response>;
  /** Replaces this test's emulator with one started with `options` (the directory stays). */
  restartEmulator(options: EmulatorOptions): Promise<void>;
}

/**
 * Registers the beforeEach and afterEach that give every test of the file its
 * workspace: config/ holds `files` (name → text), the emulator runs with `options`.
 */
export function useEmulatorWorkspace(
  files: Record<string, string>,
  options: EmulatorOptions = {},
): EmulatorWorkspace {
  let current: { emulator: EmulatorHandle; dir: string; cleanup: () => void } | null = null;
  const open = () => {
    if (!current) throw new Error('the emulator workspace exists only while a test runs');
    return current;
  };
  const write = (name: string, text: string): void => writeFileSync(join(open().dir, 'config', name), text);

  beforeEach(async () => {
    const { dir, cleanup } = tempDir();
    mkdirSync(join(dir, 'config'));
    current = { emulator: await startEmulator(options), dir, cleanup };
    for (const [name, text] of Object.entries(files)) write(name, text);
  });
  afterEach(async () => {
    const { emulator, cleanup } = open();
    current = null;
    await emulator.stop();
    cleanup();
  });

  return {
    get emulator() {
      return open().emulator;
    },
    get dir() {
      return open().dir;
    },
    write,
    cli: (...args) => {
      const { dir, emulator } = open();
      return runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
    },
    createDefaultPolicy: (configuration) => {
      const { emulator } = open();
      return fetch(`${emulator.baseUrl}/rate-limit-policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          resource: 'oauth_authentication_api',
          consumer: 'client',
          consumer_selector: 'default',
          configuration,
        }),
      });
    },
    restartEmulator: async (next) => {
      const workspace = open();
      await workspace.emulator.stop();
      workspace.emulator = await startEmulator(next);
    },
  };
}
