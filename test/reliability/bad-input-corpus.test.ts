/**
 * Every config in test/fixtures/invalid/ (each opens with one or more
 * "# expect: LINE:COL MESSAGE" lines) through the real CLI, as validate, plan
 * and apply, with an emulator running: each exits 1, prints
 * "file:LINE:COL: MESSAGE" on stderr, writes no state and sends no request
 * (not even a token request).
 * An oversized file (generated, not committed) is refused the same way.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { runCli, tempDir, type CliRun } from '../helpers/cli.js';

const invalidDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'invalid');
const files = readdirSync(invalidDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

interface Expectation {
  line: number;
  col: number;
  message: string;
}

/** The "# expect: LINE:COL MESSAGE" header of a corpus file (read as latin1: some files are not UTF-8). */
function expectationsOf(file: string): Expectation[] {
  const out: Expectation[] = [];
  for (const text of readFileSync(join(invalidDir, file), 'latin1').split('\n')) {
    const match = /^# expect: (\d+):(\d+) (.+)$/.exec(text);
    if (!match) break;
    out.push({ line: Number(match[1]), col: Number(match[2]), message: match[3]! });
  }
  return out;
}

let emulator: EmulatorHandle;
let scratch: { dir: string; cleanup: () => void };
const statePath = () => join(scratch.dir, 'state.json');

beforeAll(async () => {
  emulator = await startEmulator();
  scratch = tempDir('tenantform-corpus-');
});
afterAll(async () => {
  await emulator.stop();
  scratch.cleanup();
});
afterEach(() => {
  // Nothing a refused config does may reach the tenant (token endpoint included) or the state.
  expect(emulator.stats().requests).toBe(0);
  expect(existsSync(statePath())).toBe(false);
  expect(existsSync(`${statePath()}.lock`)).toBe(false);
});

const commands: [string, (file: string, cwd: string) => Promise<CliRun>][] = [
  ['validate', (file, cwd) => runCli(['validate', file], { cwd })],
  ['plan', (file, cwd) => runCli(['plan', file, '--state', statePath()], { cwd })],
  [
    'apply',
    (file, cwd) =>
      runCli(['apply', file, '--auto-approve', '--base-url', emulator.baseUrl, '--state', statePath()], {
        cwd,
        // Client credentials: a token fetched too early would show up as a request as well.
        env: { TENANTFORM_CLIENT_ID: emulator.clientId, TENANTFORM_CLIENT_SECRET: emulator.clientSecret },
      }),
  ],
];

describe('the bad-input corpus through the CLI', () => {
  it('holds at least 100 configs, each with an expectation', () => {
    expect(files.length).toBeGreaterThanOrEqual(100);
    for (const file of files) expect(expectationsOf(file), file).not.toEqual([]);
  });

  it.each(files)('%s: validate, plan and apply exit 1 at the expected file:line:col', async (file) => {
    for (const [name, run] of commands) {
      const result = await run(file, invalidDir);
      expect(result.code, `${name} ${file}\n${result.stderr}`).toBe(1);
      expect(result.stderr).not.toMatch(/internal/i);
      for (const want of expectationsOf(file)) {
        expect(result.stderr, `${name} ${file}`).toContain(
          `${file}:${want.line}:${want.col}: ${want.message}`,
        );
      }
      if (name !== 'validate') expect(result.stdout, `${name} printed a plan for ${file}`).toBe('');
    }
  });

  it('refuses an oversized file by name, with no request', async () => {
    const big = join(scratch.dir, 'huge.yaml');
    writeFileSync(big, `# ${'x'.repeat(5 * 1024 * 1024)}\n`);
    for (const [name, run] of commands) {
      const result = await run('huge.yaml', scratch.dir);
      expect(result.code, name).toBe(1);
      expect(result.stderr).toMatch(/^huge\.yaml: file is 5\.0 MiB .* over the 5\.0 MiB limit/m);
    }
  });
});
