/**
 * The command blocks of the docs (README.md, examples/README.md, every
 * docs/**.md page), as test/recipes.test.ts runs them: each page in a
 * temporary copy of the checkout, its blocks one after another in one bash
 * shell (a block may rely on what an earlier block of the page set up), each
 * command checked for its exit code.
 *
 * A fenced block whose language is sh, bash or console is run (console: the
 * lines that start with "$ "). An HTML comment on the line before the fence
 * (several comments: several directives) changes how:
 *
 *   <!-- recipe: skip: REASON -->     not run; only where it truly cannot run here
 *   <!-- recipe: background -->       runs in the background for the rest of the page (an
 *                                     emulator in its own terminal); the `export` lines it
 *                                     prints are run in the page's shell, as a reader pastes them
 *   <!-- recipe: terminal: ANSWER --> runs on a terminal (a pseudo-terminal) with ANSWER typed in
 *   <!-- recipe: isolated -->         runs in a subshell: it sees what earlier blocks set up, and
 *                                     what it exports does not reach later blocks
 *   <!-- recipe: setup: COMMANDS -->  COMMANDS run first, in the shell the block runs in (what the
 *                                     prose asks the reader to have done); $RECIPE_BACKGROUND is
 *                                     the output of the page's last background block
 *   <!-- recipe: postgres -->         TENANTFORM_PG_URL is set first, to a PostgreSQL server of
 *                                     the page's own
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The languages whose blocks are run. */
const RUN_LANGUAGES = new Set(['sh', 'bash', 'console']);

export interface Directives {
  skip?: string;
  background?: boolean;
  terminal?: string;
  isolated?: boolean;
  setup: string[];
  postgres?: boolean;
}

export interface RecipeBlock {
  /** The page, relative to the checkout. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The commands, as a shell would read them. */
  code: string;
  directives: Directives;
}

/** The pages whose blocks must run: README.md, examples/README.md and every .md below docs/. */
export function recipePages(root: string): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name.split('\\').join('/')}`)
        .sort()
    : [];
  return ['README.md', 'examples/README.md', ...docs].filter((page) => existsSync(join(root, page)));
}

const DIRECTIVE = /^\s*<!--\s*recipe:\s*([\s\S]*?)\s*-->\s*$/;

/** One `<!-- recipe: … -->` comment into `into`; throws on a directive it does not know. */
function addDirective(text: string, into: Directives, where: string): void {
  const [name, ...rest] = text.split(':');
  const value = rest.join(':').trim();
  switch (name!.trim()) {
    case 'skip':
      if (!value) throw new Error(`${where}: "recipe: skip" needs a reason (recipe: skip: REASON)`);
      into.skip = value;
      return;
    case 'background':
      into.background = true;
      return;
    case 'terminal':
      if (!value) throw new Error(`${where}: "recipe: terminal" needs the answer to type`);
      into.terminal = value;
      return;
    case 'isolated':
      into.isolated = true;
      return;
    case 'setup':
      if (!value) throw new Error(`${where}: "recipe: setup" needs the commands to run`);
      into.setup.push(value);
      return;
    case 'postgres':
      into.postgres = true;
      return;
    default:
      throw new Error(`${where}: unknown recipe directive "${text}" (see test/helpers/recipes.ts)`);
  }
}

/** The commands of a console block: its "$ " lines. */
function consoleCommands(lines: string[]): string[] {
  return lines.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2));
}

/** Every sh, bash and console block of a page's text, with the directives before it. */
export function parseRecipes(page: string, text: string): RecipeBlock[] {
  const lines = text.split('\n');
  const blocks: RecipeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const start = i;
    const close = new RegExp(`^\\s*\\${fence[0]}{${fence.length},}\\s*$`);
    const body: string[] = [];
    for (i++; i < lines.length && !close.test(lines[i]!); i++) {
      const line = lines[i]!;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (!RUN_LANGUAGES.has(lang)) continue;
    const directives: Directives = { setup: [] };
    for (let j = start - 1; j >= 0; j--) {
      const comment = DIRECTIVE.exec(lines[j]!);
      if (!comment) break;
      addDirective(comment[1]!, directives, `${page}:${j + 1}`);
    }
    const code = lang === 'console' ? consoleCommands(body) : body;
    blocks.push({ page, line: start + 1, code: `${code.join('\n')}\n`, directives });
  }
  return blocks;
}

/** A bash single-quoted word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** How one block runs in the page's driver script (see the module comment). */
function runLines(block: RecipeBlock, file: string, index: number): string[] {
  const d = block.directives;
  const before = [...(d.postgres ? ['export TENANTFORM_PG_URL="$RECIPE_PG_URL"'] : []), ...d.setup];
  if (d.isolated) {
    // Alongside the blocks after it: it needs what came before, nothing after needs it.
    const log = `"$RECIPE_DIR/isolated-${index}.out"`;
    return [
      `( ${[...before, `source ${file}`, `echo "ok ${index} $(date +%s.%N)" >> "$RECIPE_DIR/progress"`].join('\n')}`,
      `) > ${log} 2>&1 &`,
      `RECIPE_ISOLATED+=("$!:${index}")`,
    ];
  }
  if (d.terminal !== undefined) {
    const typed = `printf '%s\\n' ${shellQuote(d.terminal)}`;
    return [...before, `${typed} | script -qec ${shellQuote(`bash -e -o pipefail ${file}`)} /dev/null`];
  }
  if (!d.background) return [...before, `source ${file}`];
  const log = `"$RECIPE_DIR/background-${index}.out"`;
  return [
    ...before,
    `( source ${file} ) > ${log} 2>&1 &`,
    `RECIPE_BACKGROUND=${log}`,
    // Waits for the lines to paste (an emulator prints them once it listens).
    'for _ in $(seq 600); do grep -q "^ *export " "$RECIPE_BACKGROUND" && break; sleep 0.1; done',
    'grep -q "^ *export " "$RECIPE_BACKGROUND" || { cat "$RECIPE_BACKGROUND"; echo "the background block printed no export line" >&2; exit 1; }',
    'eval "$(grep "^ *export " "$RECIPE_BACKGROUND")"',
  ];
}

/**
 * The bash script that runs a page's blocks in order, with `set -e -o
 * pipefail` (a failing command ends the page) and a line in
 * $RECIPE_DIR/progress as each block starts and ends.
 */
export function driverScript(blocks: readonly RecipeBlock[], dir: string): string {
  const lines = ['set -e -o pipefail', `export RECIPE_DIR=${shellQuote(dir)}`, 'RECIPE_ISOLATED=()'];
  blocks.forEach((block, index) => {
    if (block.directives.skip) return;
    const file = `"$RECIPE_DIR/block-${index}.sh"`;
    // The trailing builtin: bash 5.2 may exec a sourced file's last external command in place of
    // a subshell (it then ends there, skipping what follows the source, with that command's status).
    writeFileSync(join(dir, `block-${index}.sh`), `${block.code}true\n`);
    lines.push(
      `echo "start ${index} $(date +%s.%N)" >> "$RECIPE_DIR/progress"`,
      `printf '\\n=== %s\\n' ${shellQuote(`${block.page}:${block.line}`)}`,
      ...runLines(block, file, index),
    );
    if (!block.directives.isolated) lines.push(`echo "ok ${index} $(date +%s.%N)" >> "$RECIPE_DIR/progress"`);
  });
  // Then the isolated blocks' outcomes, each with its output.
  lines.push(
    'RECIPE_FAILED=0',
    'for job in "${RECIPE_ISOLATED[@]}"; do',
    '  wait "${job%%:*}" || RECIPE_FAILED=1',
    '  printf \'\\n=== isolated block %s\\n\' "${job#*:}"; cat "$RECIPE_DIR/isolated-${job#*:}.out"',
    'done',
    'exit "$RECIPE_FAILED"',
  );
  return `${lines.join('\n')}\n`;
}

/** The blocks a page's run stopped in: started, never ended (isolated ones may be several). */
export function failedBlocks(blocks: readonly RecipeBlock[], dir: string): RecipeBlock[] {
  const progress = existsSync(join(dir, 'progress')) ? readFileSync(join(dir, 'progress'), 'utf8') : '';
  const started = [...progress.matchAll(/^start (\d+) /gm)].map((m) => Number(m[1]));
  const ended = new Set([...progress.matchAll(/^ok (\d+) /gm)].map((m) => Number(m[1])));
  return started.filter((i) => !ended.has(i)).map((i) => blocks[i]!);
}

/**
 * A copy of the checkout's files (tracked, and untracked but not ignored) at
 * `dest`, committed in a git repository of its own so that `git status` says
 * what the recipes left behind. `links` are symlinked to the checkout's own
 * (node_modules and dist, for a page that does not install by itself) and
 * kept out of git status.
 */
export function copyCheckout(root: string, dest: string, links: readonly string[]): void {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  const files = git(root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(join(root, file), join(dest, file), { recursive: true, verbatimSymlinks: true });
  }
  for (const link of links) execFileSync('ln', ['-s', join(root, link), join(dest, link)]);
  git(dest, 'init', '-q');
  writeFileSync(join(dest, '.git', 'info', 'exclude'), links.map((l) => `/${l}\n`).join(''));
  git(dest, 'add', '-A');
  git(dest, '-c', 'user.name=recipes', '-c', 'user.email=recipes@localhost', 'commit', '-qm', 'checkout');
}

/**
 * What a page may leave that .gitignore hides: what installing and building
 * make, and the tutorial's directory (README's next pages go on from it).
 * Anything else ignored (a saved plan, a state beside a checked-in config) is
 * left behind as much as an untracked file is.
 */
const LEFT_BY_DESIGN = /^(node_modules|dist|src\/generated|my-tenant)(\/|$)/;

/**
 * What `git status` says is new, changed or gone in the copy ('' when clean),
 * then the ignored files and directories left there ("!! path", a directory
 * once, not file by file: node_modules alone is thousands).
 */
export function checkoutChanges(dest: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dest, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ignored = git('ls-files', '--others', '--ignored', '--exclude-standard', '--directory')
    .split('\n')
    .filter((path) => path !== '' && !LEFT_BY_DESIGN.test(path))
    .map((path) => `!! ${path}\n`)
    .join('');
  return git('status', '--porcelain', '--untracked-files=all') + ignored;
}

/** The page's path as a directory name. */
export function pageSlug(page: string): string {
  return relative('.', page).replace(/[^\w.-]+/g, '_');
}
