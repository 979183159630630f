import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandIO } from '../src/cli/io.js';
import { validatePrinted as runValidate } from './helpers/validate.js';
import { varsOrProblem } from '../src/cli/read-requests.js';
import type { ConfigIssue } from '../src/config/index.js';
import { countsWith } from './helpers/kind-examples.js';

/**
 * Every file in fixtures/invalid/ holds one mistake and starts with one or more
 * "# expect: LINE:COL MESSAGE" lines: validate must exit 1 with an error at
 * that position whose message contains MESSAGE. Files in fixtures/valid/ must
 * pass with the summary given below.
 */

const here = dirname(fileURLToPath(import.meta.url));
const invalidDir = join(here, 'fixtures', 'invalid');
const validDir = join(here, 'fixtures', 'valid');

interface Expectation {
  line: number;
  col: number;
  message: string;
}

function expectationsOf(file: string): Expectation[] {
  const head = readFileSync(join(invalidDir, file), 'latin1').split('\n');
  const out: Expectation[] = [];
  for (const text of head) {
    const match = /^# expect: (\d+):(\d+) (.+)$/.exec(text);
    if (!match) break;
    out.push({ line: Number(match[1]), col: Number(match[2]), message: match[3]! });
  }
  return out;
}

async function validateJson(path: string, cwd: string, vars: string[] = [], varFiles: string[] = []) {
  let stdout = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: () => true },
    env: {},
    cwd,
  };
  const code = await runValidate(path, { vars: varsOrProblem(vars), varFiles, format: 'json' }, io);
  return {
    code,
    body: JSON.parse(stdout) as { valid: boolean; errors: ConfigIssue[]; counts: Record<string, number> },
  };
}

const invalidFiles = readdirSync(invalidDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('fixtures/invalid', () => {
  it('holds at least 100 files, each with an expectation', () => {
    expect(invalidFiles.length).toBeGreaterThanOrEqual(100);
    for (const file of invalidFiles) expect(expectationsOf(file), file).not.toEqual([]);
  });

  it.each(invalidFiles)('%s fails at the expected line:col', async (file) => {
    const { code, body } = await validateJson(file, invalidDir);
    expect(code).toBe(1);
    expect(body.valid).toBe(false);
    const found = body.errors.map((e) => `${e.line}:${e.col} ${e.message}`);
    for (const want of expectationsOf(file)) {
      const hit = body.errors.some(
        (e) =>
          e.file === file && e.line === want.line && e.col === want.col && e.message.includes(want.message),
      );
      expect(hit, `expected ${want.line}:${want.col} ${want.message}\ngot:\n${found.join('\n')}`).toBe(true);
    }
  });
});

describe('oversized file (generated, not committed)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenantform-big-'));
    await writeFile(join(dir, 'huge.yaml'), `# ${'x'.repeat(5 * 1024 * 1024)}\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused with its name and size, over the 5 MiB limit', async () => {
    const { code, body } = await validateJson('huge.yaml', dir);
    expect(code).toBe(1);
    expect(body.errors).toEqual([
      {
        file: 'huge.yaml',
        line: 0,
        col: 0,
        code: 'FILE_TOO_LARGE',
        message:
          'file is 5.0 MiB (5242883 bytes), over the 5.0 MiB limit for one file; split it into several files',
      },
    ]);
  });
});

describe('fixtures/valid', () => {
  it.each([
    [
      'single.yaml',
      [],
      [],
      { files: 1, rate_limit_policies: 1, user_permissions: 1, users: 1, token_exchange_profiles: 1 },
    ],
    [
      'split',
      [],
      [],
      { files: 5, rate_limit_policies: 4, user_permissions: 4, users: 2, token_exchange_profiles: 1 },
    ],
    [
      'anchors-and-documents.yaml',
      [],
      [],
      { files: 1, rate_limit_policies: 2, user_permissions: 1, users: 1, token_exchange_profiles: 0 },
    ],
    [
      'with-vars',
      ['ACTION_ID=6a7d8b1c'],
      ['with-vars/prod.vars.yaml'],
      { files: 1, rate_limit_policies: 1, user_permissions: 0, users: 0, token_exchange_profiles: 1 },
    ],
  ])('%s is valid', async (path, vars, varFiles, counts) => {
    const { code, body } = await validateJson(path, validDir, vars, varFiles);
    expect(body.errors).toEqual([]);
    expect(code).toBe(0);
    expect(body.counts).toEqual(countsWith(counts));
  });

  it('with-vars fails naming the variable when a value is missing', async () => {
    const { code, body } = await validateJson('with-vars', validDir, [], ['with-vars/prod.vars.yaml']);
    expect(code).toBe(1);
    expect(body.errors.map((e) => `${e.file}:${e.line}:${e.col}`)).toEqual(['with-vars/tenant.yaml:12:16']);
  });
});
