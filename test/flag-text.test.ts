/**
 * Flags are the command line's words: below src/cli no module speaks in them
 * (docs/architecture.md, the run layer). The rule: in a module of src/ outside
 * src/cli (tests and src/generated aside), no string literal or template
 * literal text holds `--NAME` where --NAME is a long option of the tenantform
 * CLI (every option of every command, as main.ts builds the program).
 * Comments are not checked. A layer below reports a typed code with data and
 * src/cli words it with the flag; a generated type's text comes from a schema
 * description, which is worded without flags instead.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { buildProgram } from '../src/cli/main.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every long option of the program and its subcommands. */
function longOptions(cmd: CommandUnknownOpts, out = new Set<string>()): Set<string> {
  for (const option of cmd.options) if (option.long) out.add(option.long);
  for (const sub of cmd.commands) longOptions(sub as CommandUnknownOpts, out);
  return out;
}

const quiet = { write: () => true };
const FLAGS = longOptions(
  buildProgram(
    { stdout: quiet, stderr: quiet, env: {}, cwd: ROOT },
    () => {},
  ) as unknown as CommandUnknownOpts,
);

/** The modules the rule covers: src/ but src/cli and src/generated, tests aside. */
function modules(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(join(ROOT, 'src'), path).split(sep);
    if (entry.isDirectory()) return rel[0] === 'cli' || rel[0] === 'generated' ? [] : modules(path);
    return /\.(ts|cjs|mjs|js)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The text of every string and template literal in `source`, with its line. */
function literals(file: string, source: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** "file:line: --flag" for each flag named in a string of `files`. */
export function flagTextIn(files: readonly string[], flags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const { line, text } of literals(file, readFileSync(file, 'utf8'))) {
      for (const match of text.matchAll(/--[a-z][a-z0-9-]*/g)) {
        if (flags.has(match[0])) out.push(`${relative(ROOT, file)}:${line}: ${match[0]}`);
      }
    }
  }
  return out;
}

describe('no CLI flag text below src/cli', () => {
  it('knows the flags it looks for', () => {
    expect(FLAGS.has('--base-url')).toBe(true);
    expect(FLAGS.has('--rate-limit-timeout')).toBe(true);
    expect(FLAGS.size).toBeGreaterThan(40);
  });

  it('finds a flag in a string, a template literal and its parts, never in a comment', () => {
    const probe = join(ROOT, 'src', 'plan', 'probe.ts');
    const text = [
      '// --state in a comment is fine',
      "const a = 'pass --state FILE';",
      'const b = `use --domain ${x} or --base-url`;',
      "const c = 'an em--dash and --no-such-flag';",
    ].join('\n');
    const found = literals(probe, text).flatMap(({ line, text: t }) =>
      [...t.matchAll(/--[a-z][a-z0-9-]*/g)].filter((m) => FLAGS.has(m[0])).map((m) => `${line}: ${m[0]}`),
    );
    expect(found).toEqual(['2: --state', '3: --domain', '3: --base-url']);
  });

  it('holds for every module of src/ outside src/cli', () => {
    expect(modules().length).toBeGreaterThan(100);
    expect(flagTextIn(modules(), FLAGS)).toEqual([]);
  });

  it('reports a module below src/cli that holds a flag, with its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-flag-text-'));
    try {
      const file = join(dir, 'probe.ts');
      writeFileSync(file, "// --state\nexport const advice = 'keep it elsewhere with --state FILE';\n");
      expect(flagTextIn([file], FLAGS).map((line) => line.split(': ').at(-1))).toEqual(['--state']);
      expect(flagTextIn([file], FLAGS)[0]).toMatch(/probe\.ts:2: --state$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
