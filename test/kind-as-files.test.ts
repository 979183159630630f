/**
 * A kind is its files: test/kinds/user-role holds a kind the package does not
 * ship (user roles, with server ids `ura_…`), laid out as in the checkout
 * (its declaration in src/resources, its emulator module in
 * src/emulator/kinds, its API schemas in schemas/, its tests and contract
 * fixtures in test/). Added to a clean copy of the checkout, and after
 * npm run gen:schemas and gen:docs, the only other files that differ are the
 * generated ones: no edit to the planner, executor, state, API client,
 * config reader or command line. The copy then type-checks, its files lint, and its tests of
 * every kind and the kind's own pass with it: nothing registers it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIND_REGISTRIES, KIND_SCHEMA_FILES, KIND_WORDS_FILE } from '../scripts/kind-schemas.mjs';
import { copyCheckout } from './helpers/recipes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KIND = join(ROOT, 'test', 'kinds', 'user-role');

/** Every file the generators write from the declarations. */
const GENERATED = [
  KIND_REGISTRIES.kinds.file,
  KIND_REGISTRIES.emulator.file,
  ...KIND_SCHEMA_FILES.map((f) => `schemas/${f}`),
  KIND_WORDS_FILE,
  'package.json',
  'docs/commands.md',
  'docs/configuration-reference.md',
  'docs/configuration.md',
  'docs/emulator.md',
].sort();

/** The kind's own tests, and the tests that run over every kind and every route. */
const TESTS = [
  'test/user-role.test.ts',
  'test/contract.test.ts',
  'test/emulator-descriptors.test.ts',
  'test/kind-schemas.test.ts',
  'test/docs-reference.test.ts',
  'src/emulator/router.test.ts',
  'src/emulator/persistence.test.ts',
];

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

let copy: string;
const run = (file: string, ...args: string[]) =>
  execFileSync(process.execPath, [file, ...args], {
    cwd: copy,
    encoding: 'utf8',
    stdio: 'pipe',
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))),
      NO_COLOR: '1',
    },
  });

beforeAll(() => {
  copy = join(mkdtempSync(join(tmpdir(), 'tenantform-kind-')), 'checkout');
  copyCheckout(ROOT, copy, ['node_modules']);
  for (const file of filesBelow(KIND)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(KIND, file), join(copy, file));
  }
  run('scripts/gen-kind-schemas.mjs');
  run('scripts/gen-docs.mjs');
}, 300_000);
afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

describe('a kind added as its files', () => {
  it('changes no file but its own and the generated ones', () => {
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: copy,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((line) => line !== '');
    const added = status.filter((l) => l.startsWith('??')).map((l) => l.slice(3));
    const changed = status.filter((l) => !l.startsWith('??')).map((l) => l.slice(3));
    expect(added.sort()).toEqual(filesBelow(KIND));
    expect(changed.sort()).toEqual(GENERATED);
  });

  it('type-checks and lints, and the tests of every kind and its own pass', () => {
    run('scripts/gen-validators.mjs');
    run('scripts/gen-types.mjs');
    run('node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit');
    run('node_modules/eslint/bin/eslint.js', ...filesBelow(KIND).filter((f) => f.endsWith('.ts')));
    // Throws (and names the failures) when a test fails.
    const out = run('node_modules/vitest/vitest.mjs', 'run', ...TESTS);
    expect(out).toMatch(new RegExp(`Test Files +${TESTS.length} passed \\(${TESTS.length}\\)`));
  }, 600_000);
});
