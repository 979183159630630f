/**
 * The dependency rule is enforced by the project's own lint config: an
 * upstream import in src/ fails `npm run lint`, and so `npm test`. Each probe
 * is linted in memory with eslint.config.js, as a file placed in a folder of
 * src/ that imports one module of every other folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED, FOLDERS } from '../scripts/dependency-rule.mjs';
import { importCycles } from '../scripts/import-cycles.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const RULE = 'tenantform/dependency-rule';
const folders = FOLDERS;
const allowed = ALLOWED;

/** One existing module per folder, as imported from a sibling folder. */
const MODULE: Record<string, string> = {
  generated: 'generated/validators.js',
  schemas: 'schemas/index.js',
  resources: 'resources/index.js',
  review: 'review/index.js',
  simulate: 'simulate/index.js',
  config: 'config/index.js',
  state: 'state/index.js',
  plan: 'plan/index.js',
  apply: 'apply/index.js',
  api: 'api/index.js',
  emulator: 'emulator/index.js',
  cli: 'cli/io.js',
};

let eslint: ESLint;
beforeAll(() => {
  // The probes are not files on disk, so the type-aware rules (which need the
  // TypeScript project) are switched off; the dependency rule needs no types.
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: {
        '@typescript-eslint/no-floating-promises': 'off',
        '@typescript-eslint/no-misused-promises': 'off',
      },
    },
  });
});

/** Lints `code` as if it were src/<folder>/<name>; returns the lines the dependency rule flags. */
async function flaggedLines(folder: string, code: string, name = 'dependency-probe.ts'): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, 'src', folder, name) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.line);
}

describe('dependency rule (eslint.config.js)', () => {
  it('knows every folder of src/', () => {
    const present = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(present).toEqual([...folders].sort());
  });

  it('fails a module-level import of src/cli from src/plan', async () => {
    const lines = await flaggedLines(
      'plan',
      `import { CliError } from '../cli/io.js';\nexport const x = CliError;\n`,
    );
    expect(lines).toEqual([1]);
  });

  it('fails a lazy import() upstream too', async () => {
    const code = `export const load = () => import('../apply/index.js');\n`;
    expect(await flaggedLines('state', code)).toEqual([1]);
  });

  it('lets plan import the state document type, and nothing else of state', async () => {
    const code =
      `import type { StateDocument } from '../state/types.js';\n` +
      `import { openState } from '../state/index.js';\n` +
      `export type D = StateDocument;\nexport const o = openState;\n`;
    expect(await flaggedLines('plan', code)).toEqual([2]);
  });

  // src/generated is build output, not linted.
  it.each(folders.filter((f) => f !== 'generated'))(
    'flags exactly the folders src/%s may not import',
    async (folder) => {
      const others = folders.filter((f) => f !== folder);
      const code =
        others.map((f, i) => `import * as m${i} from '../${MODULE[f]}';`).join('\n') +
        `\nexport const all = [${others.map((_, i) => `m${i}`).join(', ')}];\n`;
      const flagged = (await flaggedLines(folder, code)).map((line) => others[line - 1]);
      const expected = others.filter((f) => !allowed[folder]!.includes(f));
      expect(flagged).toEqual(expected);
      // Sanity: the rule is not vacuous, every folder but cli has something it may not import.
      if (folder !== 'cli') expect(expected.length).toBeGreaterThan(0);
    },
  );
});

describe('import cycles', () => {
  it('has none among the modules of src/ (in src/cli: fleet gets the command it runs; commands do not call fleet)', () => {
    expect(importCycles(join(ROOT, 'src'))).toEqual([]);
  });

  it('finds a cycle through a lazy import() or a type-only import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenantform-cycles-'));
    try {
      mkdirSync(join(dir, 'commands'));
      writeFileSync(join(dir, 'fleet.ts'), `export const run = () => import('./commands/plan.js');\n`);
      writeFileSync(
        join(dir, 'commands', 'plan.ts'),
        `import type { X } from '../fleet.js';\nexport type Y = X;\n`,
      );
      writeFileSync(join(dir, 'main.ts'), `import { run } from './fleet.js';\nexport const go = run;\n`);
      writeFileSync(join(dir, 'fleet.test.ts'), `import './main.js';\n`);
      expect(importCycles(dir)).toEqual([['commands/plan.ts', 'fleet.ts', 'commands/plan.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('function length in src/ (eslint.config.js)', () => {
  /** A function of `lines` lines in all. */
  const fn = (lines: number) => `export function f(): void {\n${'  console.log(1);\n'.repeat(lines - 2)}}\n`;

  async function tooLong(folder: string, file: string, lines: number): Promise<boolean> {
    const [result] = await eslint.lintText(fn(lines), {
      filePath: join(ROOT, 'src', ...folder.split('/'), file),
    });
    return result!.messages.some((m) => m.ruleId === 'max-lines-per-function');
  }

  it('fails a function over 80 lines in every folder of src/, but not in tests or generated code', async () => {
    expect(await tooLong('cli', 'probe.ts', 80)).toBe(false);
    expect(await tooLong('cli', 'probe.ts', 81)).toBe(true);
    expect(await tooLong('cli/commands', 'probe.ts', 81)).toBe(true);
    for (const folder of FOLDERS.filter((f) => f !== 'generated'))
      expect(await tooLong(folder, 'probe.ts', 81), folder).toBe(true);
    expect(await tooLong('state/pg', 'probe.ts', 81)).toBe(true);
    expect(await tooLong('cli', 'probe.test.ts', 81)).toBe(false);
    expect(await tooLong('state', 'probe.test.ts', 81)).toBe(false);
    expect(await tooLong('generated', 'probe.ts', 81)).toBe(false);
  });
});
