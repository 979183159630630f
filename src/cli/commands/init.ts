import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { CommandIO } from '../io.js';
import { absolute } from '../context.js';
import { PACKAGE_SCHEMAS_DIR, TOOL_VERSION } from '../version.js';
import { KINDS } from '../../resources/index.js';
import {
  GITIGNORE,
  PROJECT_YAML,
  packageJson,
  readmeMd,
  SCHEMA_COMMENT,
  workflowYaml,
} from './init-templates.js';
import type { InitFlags } from '../definitions.js';

/** One file of the scaffold: a path relative to the target directory (with `/`) and its text. */
export { PACKAGE_SCHEMAS_DIR };

export interface ScaffoldFile {
  path: string;
  content: string;
}

/** Every file `tenantform init` writes, in the order it reports them. */
export function scaffoldFiles(
  schemasDir: string = PACKAGE_SCHEMAS_DIR,
  version: string = TOOL_VERSION,
): ScaffoldFile[] {
  const schemas = readdirSync(schemasDir)
    .filter((name) => name.endsWith('.schema.json'))
    .sort()
    .map((name) => ({ path: `schemas/${name}`, content: readFileSync(join(schemasDir, name), 'utf8') }));
  if (!schemas.some((s) => s.path === 'schemas/config.schema.json')) {
    throw new Error(`config.schema.json not found in ${schemasDir}`);
  }
  return [
    { path: 'tenantform.yaml', content: PROJECT_YAML },
    ...KINDS.map((kind) => ({
      path: kind.config.file,
      content: `${SCHEMA_COMMENT}\n${kind.config.example}`,
    })),
    { path: '.gitignore', content: GITIGNORE },
    { path: 'package.json', content: packageJson(version) },
    { path: '.github/workflows/tenantform.yml', content: workflowYaml() },
    { path: 'README.md', content: readmeMd(version) },
    ...schemas,
  ];
}

/** How to write `dir` in a shell command the user copies: relative to cwd when inside it, quoted when needed. */
function shown(dir: string, io: CommandIO): string {
  const rel = relative(io.cwd, dir);
  if (rel === '') return '.';
  const path = rel.startsWith('..') || isAbsolute(rel) ? dir : rel.split(sep).join('/');
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * tenantform init [DIR] [--force]: writes the scaffold into DIR (created when
 * missing). Without --force it writes nothing when any target file exists,
 * and names those files. Exit 0 on success, 1 otherwise.
 */
export async function initAction(
  dir: string,
  flags: InitFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const target = absolute(dir || '.', io);
  if (existsSync(target) && !statSync(target).isDirectory()) {
    io.stderr.write(`Error: ${dir} exists and is not a directory.\n`);
    return 1;
  }
  const files = scaffoldFiles();
  const existing = files.filter((f) => existsSync(join(target, f.path)));
  const notFiles = existing.filter((f) => !statSync(join(target, f.path)).isFile());
  if (notFiles.length > 0) {
    io.stderr.write(
      `Error: these paths exist and are not files: ${notFiles.map((f) => f.path).join(', ')}\n`,
    );
    return 1;
  }
  if (existing.length > 0 && !flags.force) {
    io.stderr.write(
      `Error: ${existing.length} file(s) already exist in ${shown(target, io)}; nothing was written:\n` +
        existing.map((f) => `  ${f.path}\n`).join('') +
        'Re-run with --force to overwrite them.\n',
    );
    return 1;
  }

  for (const file of files) {
    const path = join(target, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }

  const overwritten = new Set(existing.map((f) => f.path));
  const schemaCount = files.filter((f) => f.path.startsWith('schemas/')).length;
  const listed = files.filter((f) => !f.path.startsWith('schemas/'));
  const where = shown(target, io);
  const next = [
    [`npx tenantform validate ${where}`, 'check the files'],
    [`npx tenantform plan ${where}`, 'see what apply would do'],
    ['npx tenantform emulator', 'a local tenant to try apply against (see README.md)'],
  ] as const;
  const width = Math.max(...next.map(([command]) => command.length));
  io.stdout.write(
    `Initialised a tenantform config in ${where}:\n` +
      listed.map((f) => `  ${f.path}${overwritten.has(f.path) ? ' (overwritten)' : ''}\n`).join('') +
      `  schemas/ (${schemaCount} JSON Schemas for editor completion and checks)\n` +
      '\nNext:\n' +
      next.map(([command, why]) => `  ${command.padEnd(width)}  # ${why}\n`).join('') +
      `Then pin tenantform in ${where} (npm install there; its README.md says how until tenantform is\n` +
      'on the npm registry), commit package-lock.json, set the secrets listed in\n' +
      '.github/workflows/tenantform.yml, and push.\n',
  );
  return 0;
}
