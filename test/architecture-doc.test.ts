/**
 * docs/architecture.md is a map of the code, and every claim on it is checked
 * here against the code: the folder table against the dependency rule the
 * lint runs (scripts/dependency-rule.mjs) and the folders of src/; each
 * folder's names against what its modules export; each stage of the run's
 * flow against its folder; the "where a new kind / reference list goes" lists
 * against every shipped kind and list (their files exist, export the declared
 * object, and that object is in the list the step names); the lint table
 * against eslint.config.js; every path, name, command, flag and npm script in
 * backticks against the checkout. Sections a test reads in a structured way
 * sit between `<!-- checked: NAME -->` and `<!-- /checked -->`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED, FOLDERS } from '../scripts/dependency-rule.mjs';
import type { ApiClient } from '../src/api/index.js';
import type { ExecutorClient, Recorder } from '../src/apply/index.js';
import { EMULATOR_KINDS } from '../src/emulator/kinds/index.js';
import { EMULATOR_REFERENCES } from '../src/emulator/references/index.js';
import { KINDS, operationsFor, REFERENCE_LISTS } from '../src/resources/index.js';
import type { StateSession } from '../src/state/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = 'docs/architecture.md';
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Files below `dir` (relative to ROOT) whose names pass `keep`, relative to ROOT. */
function filesBelow(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((name) => `${dir}/${name.split('\\').join('/')}`)
    .filter((file) => !file.includes('node_modules') && keep(file) && statSync(join(ROOT, file)).isFile());
}

const CODE = /\.(ts|mts|cts|mjs|cjs|js)$/;
const SOURCES = ['src', 'scripts', 'test', 'bin', 'action'].flatMap((dir) =>
  filesBelow(dir, (f) => CODE.test(f) && !f.startsWith('src/generated/')),
);

/** The names a module exports, and the names it declares at top level (exported or not). */
function namesOf(file: string): { exported: Set<string>; declared: Set<string> } {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, false);
  const exported = new Set<string>();
  const declared = new Set<string>();
  for (const statement of source.statements) {
    const isExported = ts.canHaveModifiers(statement)
      ? (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    const names: string[] = [];
    if (ts.isVariableStatement(statement))
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name)) names.push(d.name.text);
    if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    )
      names.push(statement.name.text);
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    )
      for (const e of statement.exportClause.elements) exported.add(e.name.text);
    for (const name of names) {
      declared.add(name);
      if (isExported) exported.add(name);
    }
  }
  return { exported, declared: new Set([...declared, ...exported]) };
}

const NAMES = new Map(SOURCES.map((file) => [file, namesOf(file)]));

/** Every name the modules of src/<folder> (tests left out) export. */
function exportsOf(folder: string): Set<string> {
  const out = new Set<string>();
  for (const [file, { exported }] of NAMES)
    if (file.startsWith(`src/${folder}/`) && !file.includes('.test.')) for (const n of exported) out.add(n);
  return out;
}

/** The text between `<!-- checked: name -->` and the next `<!-- /checked -->`. */
function checkedSection(doc: string, name: string): string {
  const start = doc.indexOf(`<!-- checked: ${name} -->`);
  if (start < 0) throw new Error(`${DOC} has no section marked <!-- checked: ${name} -->`);
  const end = doc.indexOf('<!-- /checked -->', start);
  if (end < 0) throw new Error(`${DOC}: the section ${name} is not closed with <!-- /checked -->`);
  return doc.slice(start, end);
}

/** The rows of the first Markdown table in `text`, as cells (header and rule left out). */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((line) => line.trim().startsWith('|'));
  return lines.slice(2).map((line) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim()),
  );
}

/** The backticked tokens of a piece of prose. */
const ticked = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

/** A token that names code: an identifier with a capital letter (camelCase, PascalCase, UPPER_CASE). */
function symbolOf(token: string): string | undefined {
  const m = /^([A-Za-z_$][\w$]*)(\(.*\))?(\[\])?$/.exec(token);
  return m && /[A-Z]/.test(m[1]!) ? m[1] : undefined;
}

/** The prose of the doc (fenced blocks left out). */
function prose(doc: string): string {
  return doc.replace(/^```[\s\S]*?^```/gm, '');
}

/** The placeholders of the doc's paths, each with its values: one per shipped kind or reference list. */
const kebab = (name: string) => name.replace(/_/g, '-');
const PLACEHOLDERS: Record<string, string[]> = {
  kind: KINDS.map((k) => kebab(k.name)),
  list: REFERENCE_LISTS.map((l) => kebab(l.name)),
};

/** `path` with each placeholder replaced, once per value (a path without one: itself). */
function expand(path: string): string[] {
  const m = /<([a-z]+)>/.exec(path);
  if (!m) return [path];
  const values = PLACEHOLDERS[m[1]!];
  if (!values) throw new Error(`${path}: unknown placeholder <${m[1]}>`);
  return values.flatMap((v) => expand(path.replace(m[0], v)));
}

const EVERY_FILE = filesBelow('.', () => true).map((f) => f.replace(/^\.\//, ''));

/** Why a path the doc names does not exist, or undefined when it does. */
function missingPath(path: string): string | undefined {
  if (path.includes('*')) {
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return EVERY_FILE.some((f) => pattern.test(f)) ? undefined : `${path}: matches no file`;
  }
  if (existsSync(join(ROOT, path)) || existsSync(join(ROOT, 'src', path))) return undefined;
  if (!path.includes('/') && EVERY_FILE.some((f) => basename(f) === path)) return undefined;
  return `${path}: no such file or folder`;
}

const COMMANDS_DOC = read('docs/commands.md');
const COMMAND_NAMES = new Set([...COMMANDS_DOC.matchAll(/^## tenantform (\S+)/gm)].map((m) => m[1]!));
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

const doc = read(DOC);
/** The lint rules of the doc's table, checked against eslint.config.js below. */
const LINT_RULES = new Set(tableRows(checkedSection(doc, 'lint')).map(([rule]) => ticked(rule!)[0]!));

/** Why a backticked token of the doc names nothing real, or undefined when it names something (or is not code). */
function missingToken(token: string): string | undefined {
  if (LINT_RULES.has(token)) return undefined;
  const flags = token.match(/--[a-z][a-z-]*/g) ?? [];
  const flag = flags.find((f) => !COMMANDS_DOC.includes(f));
  if (flag) return `${token}: no flag ${flag} in docs/commands.md`;
  const words = token.split(/\s+/);
  if (words[0] === 'npm') {
    const script = words[1] === 'run' ? words[2]! : words[1]!;
    return script in SCRIPTS ? undefined : `${token}: no npm script ${script}`;
  }
  const command = words[0] === 'tenantform' ? words[1] : words.length > 1 ? words[0] : undefined;
  if (command !== undefined && /^[a-z-]+$/.test(command) && (words[0] === 'tenantform' || flags.length > 0))
    return COMMAND_NAMES.has(command) ? undefined : `${token}: no command tenantform ${command}`;
  if (words.length > 1 || token.startsWith('.') || token.startsWith('--')) return undefined;
  if (token.includes('/') || /\.(ts|mjs|cjs|js|json|md|yml|yaml)$/.test(token)) {
    const missing = expand(token).map(missingPath).filter(Boolean);
    return missing.length > 0 ? missing.join('; ') : undefined;
  }
  const symbol = symbolOf(token);
  if (symbol === undefined) return undefined;
  return [...NAMES.values()].some((n) => n.declared.has(symbol))
    ? undefined
    : `${token}: no module declares ${symbol}`;
}

describe(`${DOC}: the layers`, () => {
  it('apply declares the client and recorder it needs, and the API client and state session fit them', () => {
    // Checked by the type-check (npm test runs it over test/): these assignments compile.
    const fits = (client: ApiClient, session: StateSession): [ExecutorClient, Recorder] => [client, session];
    expect(fits).toBeTypeOf('function');
  });

  const rows = tableRows(checkedSection(doc, 'folders')).map(([folder, owns, imports]) => ({
    folder: /^`src\/([a-z-]+)`$/.exec(folder!)?.[1] ?? folder!,
    owns: owns!,
    imports: imports!,
  }));

  it('has a row for every folder of src/ and every folder the dependency rule knows', () => {
    const present = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const fix = `${DOC}: the table marked "checked: folders" needs one row per folder of src/`;
    expect(rows.map((r) => r.folder).sort(), fix).toEqual([...present].sort());
    expect(rows.map((r) => r.folder).sort(), fix).toEqual([...FOLDERS].sort());
  });

  it('says what each folder may import exactly as scripts/dependency-rule.mjs does', () => {
    const said = (imports: string, folder: string) =>
      imports === 'nothing'
        ? []
        : imports === 'everything'
          ? FOLDERS.filter((f) => f !== folder)
          : imports.split(',').map((s) => s.trim());
    const table = Object.fromEntries(rows.map((r) => [r.folder, said(r.imports, r.folder).sort()]));
    const rule = Object.fromEntries(
      FOLDERS.map((f) => [f, (ALLOWED as Record<string, string[]>)[f]!.filter((a) => a !== f).sort()]),
    );
    expect(table, `${DOC}: "may import" must say what ALLOWED of scripts/dependency-rule.mjs says`).toEqual(
      rule,
    );
  });

  it("names in each folder's row only what that folder's modules export", () => {
    const strays = rows.flatMap((r) => {
      const exported = exportsOf(r.folder);
      return ticked(r.owns)
        .map(symbolOf)
        .filter((s): s is string => s !== undefined && !exported.has(s))
        .map((s) => `src/${r.folder}: ${s}`);
    });
    expect(strays).toEqual([]);
  });

  it('every folder but src/cli and src/generated opens its index.ts with what it owns', () => {
    const without = FOLDERS.filter((f) => f !== 'cli' && f !== 'generated').filter(
      (f) => !existsSync(join(ROOT, 'src', f, 'index.ts')) || !read(`src/${f}/index.ts`).startsWith('/**'),
    );
    expect(without).toEqual([]);
    expect(existsSync(join(ROOT, 'src/cli/index.ts'))).toBe(false);
  });
});

describe(`${DOC}: how a run flows`, () => {
  const block = checkedSection(doc, 'flow');
  const stages = [...block.matchAll(/^[\s│]*src\/([a-z-]+)\s+(.+)$/gm)].map((m) => ({
    folder: m[1]!,
    text: m[2]!,
  }));

  it('has stages, each in a folder of src/', () => {
    expect(stages.length).toBeGreaterThan(5);
    expect(stages.map((s) => s.folder).filter((f) => !FOLDERS.includes(f))).toEqual([]);
  });

  it('names at each stage what its folder (or one it may import) exports, and files of its folder', () => {
    const strays = stages.flatMap(({ folder, text }) => {
      const visible = [folder, ...(ALLOWED as Record<string, string[]>)[folder]!];
      const known = new Set(visible.flatMap((f) => [...exportsOf(f)]));
      const symbols = [...text.matchAll(/(?<![.\w])([A-Za-z_$][\w$]*)/g)]
        .map((m) => m[1]!)
        .filter((w) => symbolOf(w) !== undefined && !known.has(w));
      const files = [...text.matchAll(/([\w-]+\.ts)/g)]
        .map((m) => m[1]!)
        .filter((f) => !existsSync(join(ROOT, 'src', folder, f)));
      return [...symbols, ...files].map((s) => `src/${folder}: ${s}`);
    });
    expect(strays).toEqual([]);
  });
});

/** One step of a "where a new X goes" list. */
interface Step {
  /** The places the step starts with (before its first colon): the files or folders it writes. */
  writes: string[];
  /** The paths with a placeholder it names. */
  paths: string[];
  /** The lists it names as `LIST` (`file`). */
  lists: { name: string; file: string }[];
  /** True for the step the generators do (it starts with `npm run gen:…`). */
  generated: boolean;
}

/** The steps of a "where a new X goes" list. */
function steps(section: string): Step[] {
  return section
    .split(/\n(?=\d+\. )/)
    .filter((s) => /^\d+\. /.test(s))
    .map((step) => {
      const head = step.replace(/^\d+\. /, '').split(/:\s/)[0]!;
      return {
        writes: ticked(head).filter((t) => t.includes('/')),
        paths: ticked(step).filter((t) => /<[a-z]+>/.test(t) && t.endsWith('.ts')),
        lists: [...step.matchAll(/`([A-Z][A-Z_]+)`\s+\(`([^`]+)`\)/g)].map((m) => ({
          name: m[1]!,
          file: m[2]!,
        })),
        generated: head.startsWith('`npm run gen:'),
      };
    });
}

/**
 * The entries of the list `name` declared at top level in `file`: an array
 * literal's elements (as written) or an object literal's keys.
 */
function listEntries(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || d.name.text !== name || !d.initializer) continue;
      let init: ts.Expression = d.initializer;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
      if (ts.isArrayLiteralExpression(init)) return init.elements.map((e) => e.getText(source));
      if (ts.isObjectLiteralExpression(init))
        return init.properties.map((p) => (p.name ? p.name.getText(source).replace(/^'|'$/g, '') : ''));
    }
  }
  throw new Error(`${file} declares no list ${name}`);
}

/**
 * Checks one "where a new X goes" list against the things of that sort that
 * exist: each path with the placeholder exists for every one of them, exports
 * a registered declaration, and that export is in each list the section names
 * whose file sits in the same folder.
 */
async function checkAdditions(
  section: string,
  placeholder: string,
  registered: readonly object[],
): Promise<string[]> {
  const problems: string[] = [];
  const found = steps(section);
  const lists = found.flatMap((s) => s.lists);
  const templates = found.flatMap((s) => s.paths).filter((p) => p.includes(`<${placeholder}>`));
  expect(templates.length).toBeGreaterThan(0);
  for (const template of templates)
    for (const file of expand(template)) {
      if (!existsSync(join(ROOT, file))) {
        problems.push(`${file} (from ${template}): no such file`);
        continue;
      }
      const module = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<string, unknown>;
      if (!Object.values(module).some((v) => registered.includes(v as object)))
        problems.push(`${file}: exports no declaration that is registered`);
      for (const list of lists.filter((l) => dirname(l.file) === dirname(template))) {
        const inList = listEntries(list.file, list.name);
        if (!Object.keys(module).some((k) => inList.includes(k)))
          problems.push(`${file}: exports nothing listed in ${list.name} (${list.file})`);
      }
    }
  return problems;
}

/** Whether `file` (relative to a kind's folder) is one of the places `writes` names, for the kind `name`. */
const writtenBy = (writes: string[], name: string, file: string) =>
  writes.some((w) => {
    const place = w.replace(/<kind>/g, name);
    return place.endsWith('/') ? file.startsWith(place) : file === place;
  });

describe(`${DOC}: where new things go`, () => {
  it('a command: every command of docs/commands.md has its entry in the list the steps name', () => {
    const lists = steps(checkedSection(doc, 'command')).flatMap((s) => s.lists);
    expect(lists.length).toBeGreaterThan(0);
    const commands = [...COMMANDS_DOC.matchAll(/^## tenantform ([a-z-]+)$/gm)].map((m) => m[1]!);
    for (const list of lists) expect(listEntries(list.file, list.name).sort()).toEqual(commands.sort());
  });

  it("a command: the commands never read process's streams, environment or working directory", () => {
    const touching = filesBelow('src/cli/commands', (f) => f.endsWith('.ts') && !f.includes('.test.')).filter(
      (f) => /\bprocess\.(env|stdout|stderr|stdin|cwd|argv|exit)\b/.test(read(f)),
    );
    expect(touching).toEqual([]);
  });

  it('a kind: every shipped kind has the files the list names, each in the list it names', async () => {
    const section = checkedSection(doc, 'kind');
    expect(await checkAdditions(section, 'kind', [...KINDS, ...EMULATOR_KINDS])).toEqual([]);
  });

  it('a kind: the test-only kind is exactly the files the steps write, at their places', () => {
    const section = checkedSection(doc, 'kind');
    const folder = ticked(section).find((t) => /^test\/kinds\/[a-z-]+\/$/.test(t));
    expect(folder, `${DOC}: the kind section names the test-only kind's folder`).toBeDefined();
    const name = basename(folder!);
    const writes = steps(section).flatMap((s) => s.writes);
    const files = filesBelow(folder!.replace(/\/$/, ''), () => true).map((f) => f.slice(folder!.length));
    expect(files.filter((f) => !writtenBy(writes, name, f))).toEqual([]);
    const missing = writes
      .map((w) => w.replace(/<kind>/g, name))
      .filter((w) => (w.endsWith('/') ? !files.some((f) => f.startsWith(w)) : !files.includes(w)));
    expect(missing).toEqual([]);
  });

  it('a kind: the generated step names the lists the generators write, and only generated files', async () => {
    const generated = steps(checkedSection(doc, 'kind')).filter((s) => s.generated);
    expect(generated).toHaveLength(1);
    const step = checkedSection(doc, 'kind')
      .split(/\n(?=\d+\. )/)
      .find((s) => s.includes('`npm run gen:'))!;
    const { KIND_REGISTRIES, KIND_SCHEMA_FILES, KIND_WORDS_FILE } =
      await import('../scripts/kind-schemas.mjs');
    const pages = await import('../scripts/docs-reference.mjs');
    const registries = Object.values(KIND_REGISTRIES);
    expect(generated[0]!.lists.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      registries.map(({ name, file }) => ({ name, file })).sort((a, b) => a.name.localeCompare(b.name)),
    );
    const written = new Set([
      ...registries.map((r) => r.file),
      KIND_WORDS_FILE,
      ...KIND_SCHEMA_FILES.map((f) => `schemas/${f}`),
      'package.json',
      pages.COMMANDS_PAGE,
      pages.CONFIGURATION_PAGE,
      ...pages.KIND_TABLES.map((t) => t.page),
      pages.ROUTE_SOURCES.page,
    ]);
    expect(ticked(step).filter((t) => t.includes('.') && !t.startsWith('npm') && !written.has(t))).toEqual(
      [],
    );
    for (const r of registries) expect(read(r.file)).toMatch(/^\/\/ Generated by /);
  });

  it('a kind: the schemas its operations table names are in schemas/', () => {
    const file = (name: string) =>
      `schemas/${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.schema.json`;
    const missing = KINDS.flatMap((kind) =>
      Object.values(operationsFor(kind, 'full')).flatMap((op) =>
        [op?.request, op?.response].filter((s): s is string => !!s).map(file),
      ),
    ).filter((f) => !existsSync(join(ROOT, f)));
    expect(missing).toEqual([]);
  });

  it('a reference list: every list has the files the list names, each in the list it names', async () => {
    const section = checkedSection(doc, 'reference-list');
    expect(await checkAdditions(section, 'list', [...REFERENCE_LISTS, ...EMULATOR_REFERENCES])).toEqual([]);
  });
});

describe(`${DOC}: what the checks enforce`, () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });
  const rows = tableRows(checkedSection(doc, 'lint')).map(([rule, where, what]) => ({
    rule: ticked(rule!)[0]!,
    where: where!,
    what: what!,
  }));
  const PROBES = [
    'src/cli/probe.ts',
    'src/plan/probe.ts',
    'src/cli/probe.test.ts',
    'test/probe.ts',
    'scripts/probe.mjs',
  ];

  /** The probes a "where" cell covers: `dir/` (but tests), every `.ts` file, every file. */
  function covered(where: string): string[] {
    const dir = ticked(where).find((t) => t.endsWith('/'));
    if (dir)
      return PROBES.filter(
        (p) => p.startsWith(dir) && !(where.includes('but tests') && p.includes('.test.')),
      );
    if (/every `\.ts` file/.test(where)) return PROBES.filter((p) => p.endsWith('.ts'));
    if (/^every file$/.test(where)) return PROBES;
    throw new Error(`unknown "where": ${where}`);
  }

  it.each(rows.map((r) => [r.rule, r] as const))(
    '%s is an error exactly where the table says',
    async (_, row) => {
      const on: string[] = [];
      for (const probe of PROBES) {
        const config = (await eslint.calculateConfigForFile(join(ROOT, probe))) as {
          rules?: Record<string, unknown>;
        };
        const setting = config.rules?.[row.rule];
        const level = Array.isArray(setting) ? setting[0] : setting;
        if (level === 2 || level === 'error') on.push(probe);
        const max = /over (\d+) lines/.exec(row.what);
        if (max && (level === 2 || level === 'error'))
          expect((setting as [unknown, { max: number }])[1].max).toBe(Number(max[1]));
      }
      expect(on, `${DOC}: the lint table's "where" for ${row.rule} must match eslint.config.js`).toEqual(
        covered(row.where),
      );
    },
  );

  it('lists every rule eslint.config.js sets to error itself', () => {
    const own = [...read('eslint.config.js').matchAll(/'([@\w/-]+)':\s*\[?\s*'error'/g)].map((m) => m[1]!);
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((rule) => !rows.some((r) => r.rule === rule))).toEqual([]);
  });
});

describe(`${DOC}: every name in backticks`, () => {
  it('names a path, symbol, command, flag or npm script that exists', () => {
    const missing = [...new Set(ticked(prose(doc)))].map(missingToken).filter(Boolean);
    expect(missing).toEqual([]);
  });

  it('is a map, not the manual: at most 250 lines', () => {
    expect(doc.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});
