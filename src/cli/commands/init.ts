import { readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { CommandIO } from '../io.js';
import type { InitRequest } from '../../run/local-requests.js';
import { writeScaffold, type ScaffoldFile } from '../../run/local-runs.js';
import { parseInitRequest } from '../local-requests.js';
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

export { PACKAGE_SCHEMAS_DIR };
export type { ScaffoldFile };

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

/**
 * Why init refuses a directory that already holds config: the example
 * resources it adds would join that config, and the next apply would create
 * them on the tenant. Names the config found and what init would add.
 */
async function alreadyConfigured(
  where: string,
  config: readonly string[],
  files: readonly ScaffoldFile[],
): Promise<string> {
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
  return runInit(parseInitRequest(dir, flags, io), io);
}

/** Runs an init request: the scaffold written, or why nothing was; the exit code. */
async function runInit(request: InitRequest, io: CommandIO): Promise<number> {
  const files = scaffoldFiles();
  const outcome = await writeScaffold(request, files, io);
  const where = shown(request.dir, io);
  switch (outcome.kind) {
    case 'not-a-directory':
      io.stderr.write(`Error: ${request.given} exists and is not a directory.\n`);
      return 1;
    case 'holds-config':
      io.stderr.write(await alreadyConfigured(where, outcome.config, files));
      return 1;
    case 'not-files':
      io.stderr.write(`Error: these paths exist and are not files: ${outcome.paths.join(', ')}\n`);
      return 1;
    case 'files-exist':
      io.stderr.write(
        `Error: ${outcome.paths.length} file(s) already exist in ${where}; nothing was written:\n` +
          outcome.paths.map((path) => `  ${path}\n`).join('') +
          'Re-run with --force to overwrite them.\n',
      );
      return 1;
    case 'written':
      io.stdout.write(writtenText(where, files, outcome.overwritten));
      return 0;
  }
}

/** What init says once it has written the scaffold into `where`: the files, and what to run next. */
function writtenText(
  where: string,
  files: readonly ScaffoldFile[],
  overwrittenPaths: readonly string[],
): string {
  const overwritten = new Set(overwrittenPaths);
  const schemaCount = files.filter((f) => f.path.startsWith('schemas/')).length;
  const listed = files.filter((f) => !f.path.startsWith('schemas/'));
  // Run where init ran (a checkout or a project that has tenantform installed); `--no`
  // as in the README and workflow written here: npx never downloads a package of that name.
  const next = [
    [`npx --no tenantform validate ${where}`, 'check the files'],
    [`npx --no tenantform plan ${where}`, 'see what apply would do'],
    ['npx --no tenantform emulator', 'a local tenant to try apply against (see README.md)'],
  ] as const;
  const width = Math.max(...next.map(([command]) => command.length));
  return (
    `Initialised a tenantform config in ${where}:\n` +
    listed.map((f) => `  ${f.path}${overwritten.has(f.path) ? ' (overwritten)' : ''}\n`).join('') +
    `  schemas/ (${schemaCount} JSON Schemas for editor completion and checks)\n` +
    '\nNext:\n' +
    next.map(([command, why]) => `  ${command.padEnd(width)}  # ${why}\n`).join('') +
    `Then pin tenantform in ${where} (npm install there; its README.md says how until tenantform is\n` +
    'on the npm registry), commit package-lock.json, set the secrets listed in\n' +
    '.github/workflows/tenantform.yml, and push.\n'
  );
}
