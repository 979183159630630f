/**
 * A corrupt state file (or journal) is refused by plan and apply: exit 1, a
 * message naming the file and saying it was left untouched, the bytes and
 * mtime unchanged, the backup unchanged, no lock left behind, and not one
 * request sent (token endpoint included).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { formatAddress } from '../../src/resources/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { INTERNAL_ERROR } from './harness.js';
import { profile, writeConfig } from './tenant-config.js';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-corrupt-'));
  emulator = await startEmulator();
  mkdirSync(join(dir, 'state'));
  writeConfig(configPath(), {
    rate_limit_policies: [],
    user_permissions: [],
    token_exchange_profiles: [PROFILE],
  });
});
afterEach(async () => {
  await emulator.stop();
  cleanup();
});

const configPath = () => join(dir, 'tenant.yaml');
const statePath = () => join(dir, 'state', 'state.json');
const PROFILE = profile('corrupt', 1);
const ADDRESS = formatAddress('token_exchange_profile', [PROFILE.subject_token_type]);
/** A valid state recording PROFILE with the id tep_ABCDEF. */
const VALID = {
  format_version: 1,
  lineage: 'lineage-x',
  serial: 3,
  resources: [
    {
      kind: 'token_exchange_profile',
      address: ADDRESS,
      identity: [PROFILE.subject_token_type],
      attributes: PROFILE,
      id: 'tep_ABCDEF',
    },
  ],
};
const VALID_TEXT = JSON.stringify(VALID, null, 2) + '\n';

/** Runs plan and apply on the state as it is; each must refuse it and leave every file as it was. */
async function expectRefused(file: string, message: RegExp): Promise<void> {
  const files = [statePath(), `${statePath()}.backup`, `${statePath()}.journal`].filter((f) => existsSync(f));
  const before = files.map((f) => ({ f, bytes: readFileSync(f), mtime: statSync(f).mtimeMs }));
  for (const command of [['plan'], ['apply', '--auto-approve', '--base-url', emulator.baseUrl]]) {
    const result = await runCli([command[0]!, configPath(), '--state', statePath(), ...command.slice(1)], {
      cwd: dir,
      env: { TENANTFORM_CLIENT_ID: emulator.clientId, TENANTFORM_CLIENT_SECRET: emulator.clientSecret },
    });
    expect(result.code, command[0]).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/(It was|Both were) left untouched/);
    expect(result.stderr).not.toMatch(INTERNAL_ERROR);
    for (const { f, bytes, mtime } of before) {
      expect(readFileSync(f).equals(bytes), `${f} changed`).toBe(true);
      expect(statSync(f).mtimeMs, `${f} was rewritten`).toBe(mtime);
    }
    expect(existsSync(`${statePath()}.lock`)).toBe(false);
  }
  expect(emulator.stats().requests).toBe(0);
}

describe('a corrupt state file is refused and left untouched', () => {
  const broken = (change: (doc: Record<string, unknown>) => void): string => {
    const doc = structuredClone(VALID) as unknown as Record<string, unknown>;
    change(doc);
    return JSON.stringify(doc);
  };
  it.each([
    ['empty', '', /not valid JSON/],
    ['not JSON', 'garbage, not a state\n', /not valid JSON/],
    ['truncated', VALID_TEXT.slice(0, 60), /not valid JSON/],
    ['a JSON array', '[]\n', /not a valid state document/],
    [
      'a resource without an address',
      broken((d) => delete (d.resources as Record<string, unknown>[])[0]!.address),
      /not a valid state document/,
    ],
    ['a negative serial', broken((d) => (d.serial = -1)), /not a valid state document/],
    ['a future format version', broken((d) => (d.format_version = 99)), /format_version 99/],
    [
      'a broken byte between tokens',
      Buffer.from(VALID_TEXT.replace('"serial"', '"ser\u0000ial"')),
      /not a valid state document|not valid JSON/,
    ],
  ])('%s', async (_name, content, message) => {
    writeFileSync(statePath(), content);
    writeFileSync(`${statePath()}.backup`, VALID_TEXT);
    await expectRefused(statePath(), message);
  });

  // A lossy decode would read a flipped byte inside the id "tep_ABCDEF" as
  // "tep_AB\uFFFDDEF": plan would say "No changes" and a later delete would use
  // the wrong id. The state is decoded strictly and refused instead.
  it('invalid UTF-8 inside a string', async () => {
    const bytes = Buffer.from(VALID_TEXT);
    const at = bytes.indexOf('tep_ABCDEF') + 6;
    bytes[at] = 0xff;
    writeFileSync(statePath(), bytes);
    await expectRefused(statePath(), /UTF-8/);
  });
});

describe('a corrupt journal is refused and left untouched', () => {
  const entry = (v: number, lineage: string, address: string) =>
    JSON.stringify({ v, lineage, op: 'remove', address });
  it.each([
    [
      'a bad line before good ones',
      [entry(1, 'lineage-x', 'x'), 'garbage', entry(1, 'lineage-x', 'y')],
      /line 2 is not valid JSON/,
    ],
    [
      'entries of another lineage',
      [entry(1, 'another', 'x'), entry(1, 'another', 'y')],
      /belongs to another state/,
    ],
    [
      'entries of a future version',
      [entry(9, 'lineage-x', 'x'), entry(9, 'lineage-x', 'y')],
      /version|format/,
    ],
  ])('%s', async (_name, lines, message) => {
    writeFileSync(statePath(), VALID_TEXT);
    writeFileSync(`${statePath()}.journal`, lines.join('\n') + '\n');
    await expectRefused(statePath(), message);
  });
});
