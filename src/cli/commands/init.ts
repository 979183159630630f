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
    { path: '.github/workflows/tenantform.yml', content: workflowYaml(KINDS) },
    { path: 'README.md', content: readmeMd(version, KINDS) },
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

/** The config files already below `dir` (as validate and plan would read them), as the user would write them. */
async function configFilesIn(dir: string, io: CommandIO): Promise<string[]> {
  const { findConfigFiles, displayPath } = await import('../../config/index.js');
  const found = await findConfigFiles([dir], io.cwd, new Set());
  return found.files.map((file) => displayPath(file, io.cwd));
}

/**
 * Why init refuses a directory that already holds config: the example
 * resources it adds would join that config, and the next apply would create
 * them on the tenant. Names the config found and what init would add.
 */
async function alreadyConfigured(where: string, config: string[], files: ScaffoldFile[]): Promise<string> {
  const { parseConfigText } = await import('../../config/index.js');
  const found = config.slice(0, 10).map((f) => `  ${f}\n`);
  if (config.length > 10) found.push(`  … and ${config.length - 10} more\n`);
  const examples = files.flatMap((f) =>
    f.path.endsWith('.yaml')
      ? parseConfigText(f.content, f.path).resources.map((r) => ({ file: f.path, r }))
      : [],
  );
  return (
    `Error: ${where} already holds config files; nothing was written:\n${found.join('')}` +
    `init would add ${examples.length} example resources to that config, which the next apply would create on the tenant:\n` +
    examples.map(({ file, r }) => `  ${r.address}  (${file})\n`).join('') +
    'Re-run with --force to add them anyway, or run init in an empty directory.\n'
  );
}

/**
 * tenantform init [DIR] [--force]: writes the scaffold into DIR (created when
 * missing). Without --force it writes nothing when DIR already holds config
 * files (the examples would join that config), or when any target file
 * exists, and names those files. Exit 0 on success, 1 otherwise.
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
  const config = existsSync(target) ? await configFilesIn(target, io) : [];
  if (config.length > 0 && !flags.force) {
    io.stderr.write(await alreadyConfigured(shown(target, io), config, files));
    return 1;
  }
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
  // Run where init ran (a checkout or a project that has tenantform installed); `--no`
  // as in the README and workflow written here: npx never downloads a package of that name.
  const next = [
    [`npx --no tenantform validate ${where}`, 'check the files'],
    [`npx --no tenantform plan ${where}`, 'see what apply would do'],
    ['npx --no tenantform emulator', 'a local tenant to try apply against (see README.md)'],
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
