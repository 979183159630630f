/**
 * Every command block of README.md, examples/README.md and every docs/**.md
 * page runs as written, on this machine, and leaves the checkout clean.
 *
 * Each page runs in a temporary copy of the checkout (its files, committed in
 * a git repository of its own): its blocks in order in one bash shell with
 * `set -e -o pipefail`, in the environment of a user's shell (no npm_*
 * variables, no node_modules/.bin on PATH: `node` is the machine's own, as
 * for a reader), then `git status` must be empty. A page that installs by
 * itself (a block runs `npm ci`) starts from the copy alone; the others get
 * the checkout's node_modules and dist/ (built by `npm test`) as symlinks.
 * How blocks are found and the annotations that need set-up or skip one:
 * test/helpers/recipes.ts. Pages run concurrently; each copy stays at one
 * path per checkout, so npx's cache entry for it is reused between runs.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privatePgUnavailable, startPrivatePg, type PrivatePg } from './helpers/private-pg.js';
import {
  checkoutChanges,
  copyCheckout,
  driverScript,
  failedBlocks,
  pageSlug,
  parseRecipes,
  recipePages,
  type RecipeBlock,
} from './helpers/recipes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(
  tmpdir(),
  `tenantform-recipes-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`,
);
const PAGE_TIMEOUT_MS = 420_000;

const pages = recipePages(ROOT).map((page) => ({
  page,
  blocks: parseRecipes(page, readFileSync(join(ROOT, page), 'utf8')),
}));

/** The environment of a reader's shell: nothing of npm's run of the tests, the machine's own node first. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|TENANTFORM_|VITEST|NODE_OPTIONS$|INIT_CWD$)/i.test(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.split(/[\\/]/).includes('node_modules'))
    .join(delimiter);
  return { ...env, ...extra };
}

/** Whether a process of the group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends what the page left running (background emulators), by its process group. */
async function stopGroup(pgid: number): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    if (!groupAlive(pgid)) return;
    process.kill(-pgid, signal);
    for (let i = 0; i < 50 && groupAlive(pgid); i++) await delay(100);
  }
}

/** Runs the page's driver script in `copy`; resolves with its exit code and output. */
async function runPage(copy: string, dir: string, env: NodeJS.ProcessEnv) {
  const child = spawn('bash', [join(dir, 'driver.sh')], {
    cwd: copy,
    env,
    detached: true, // its own process group: whatever a block leaves running is stopped with it
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => void stopGroup(child.pid!), PAGE_TIMEOUT_MS);
  const code = await new Promise<number | null>((done) => child.once('close', (c) => done(c)));
  clearTimeout(timer);
  await stopGroup(child.pid!);
  return { code, output };
}

/** What a failed page says: the block it stopped in, and the end of the output. */
function failure(blocks: readonly RecipeBlock[], dir: string, output: string): string {
  const open = failedBlocks(blocks, dir);
  const which =
    open.length > 0 ? open.map((b) => `${b.page}:${b.line}\n${b.code}`).join('\n') : 'none started';
  return `the run stopped in:\n${which}\n--- output (last 8000 characters) ---\n${output.slice(-8000)}`;
}

const needsPg = pages.some((p) => p.blocks.some((b) => b.directives.postgres && !b.directives.skip));
const pgMissing = needsPg ? privatePgUnavailable() : null;
let pg: PrivatePg | null = null;

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  if (needsPg && pgMissing === null) pg = await startPrivatePg();
}, 120_000);
// Removing a copy per page (the README's with the node_modules its npm ci installed) took over the
// default minute on a busy 2-core machine.
afterAll(() => {
  pg?.destroy();
  // RECIPES_KEEP=1 keeps the copies, the driver scripts and their progress for a look.
  if (!process.env.RECIPES_KEEP) rmSync(WORK, { recursive: true, force: true });
}, 300_000);

/** Runs a page given as text in `cwd` (no checkout copy): the harness's own checks. */
async function runText(text: string) {
  const blocks = parseRecipes('page.md', text);
  const base = join(WORK, `harness-${Math.random().toString(36).slice(2)}`);
  const dir = join(base, 'driver');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'driver.sh'), driverScript(blocks, dir));
  const run = await runPage(base, dir, userEnv({}));
  const failed = failedBlocks(blocks, dir).map((b) => b.line);
  rmSync(base, { recursive: true, force: true });
  return { ...run, failed, blocks };
}

describe('the recipe harness', () => {
  it('runs blocks in one shell, in order, and stops at the first command that fails, naming its block', async () => {
    const run = await runText(
      '```sh\nexport GREETING=hello\n```\n\n```bash\ntest "$GREETING" = hello\nfalse\necho unreachable\n```\n\n```sh\necho never\n```\n',
    );
    expect(run.code).not.toBe(0);
    expect(run.failed).toEqual([5]);
    expect(run.output).not.toContain('unreachable');
    expect(run.output).not.toContain('never');
  });

  it('takes the commands of a console block, skips a block that says why, runs indented blocks', async () => {
    const run = await runText(
      '<!-- recipe: skip: it cannot run here -->\n```sh\nexit 1\n```\n\n1. Step:\n\n   ```console\n   $ echo from-console\n   from-console\n   ```\n',
    );
    expect(run.code, run.output).toBe(0);
    expect(run.blocks.map((b) => b.code)).toEqual(['exit 1\n', 'echo from-console\n']);
    expect(run.output).toContain('from-console');
  });

  it('pastes the export lines of a background block, and fails on an isolated block that fails', async () => {
    const run = await runText(
      '<!-- recipe: background -->\n```sh\necho "  export FROM_BACKGROUND=yes"; sleep 600\n```\n\n' +
        '<!-- recipe: isolated -->\n```sh\ntest "$FROM_BACKGROUND" = yes\nexport LEAK=1\nexit 3\n```\n\n' +
        // Ends in an external command after a background job (bash may exec it in place of the subshell).
        '<!-- recipe: isolated -->\n```sh\nsleep 30 &\nkill $!; rm -rf "$(mktemp -d)"\n```\n\n' +
        '```sh\ntest -z "$LEAK"\n```\n',
    );
    expect(run.code).not.toBe(0);
    expect(run.failed).toEqual([7]);
  });

  it('sees what a recipe leaves in the copy of the checkout, ignored files too but for the tutorial and the build', async () => {
    const base = join(WORK, 'harness-copy');
    copyCheckout(ROOT, base, ['node_modules', 'dist']);
    try {
      expect(checkoutChanges(base)).toBe('');
      writeFileSync(join(base, 'tenants.json'), '{}');
      mkdirSync(join(base, 'my-tenant'));
      writeFileSync(join(base, 'my-tenant', 'a.yaml'), ''); // the tutorial's directory is git-ignored
      writeFileSync(join(base, 'README.md'), 'changed');
      writeFileSync(join(base, 'hotfix.tfplan'), '{}'); // ignored, but left behind all the same
      expect(checkoutChanges(base)).toBe(' M README.md\n?? tenants.json\n!! hotfix.tfplan\n');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('refuses a directive it does not know, and a skip without a reason', () => {
    expect(() => parseRecipes('p.md', '<!-- recipe: skipp -->\n```sh\ntrue\n```\n')).toThrow(
      /p\.md:1: unknown recipe directive "skipp"/,
    );
    expect(() => parseRecipes('p.md', '<!-- recipe: skip -->\n```sh\ntrue\n```\n')).toThrow(/needs a reason/);
  });
});

describe('the command blocks of the docs', () => {
  it('are found on every page that has them, and a skipped one says why', () => {
    expect(pages.map((p) => p.page)).toEqual(expect.arrayContaining(['README.md', 'examples/README.md']));
    const all = pages.flatMap((p) => p.blocks);
    expect(all.length).toBeGreaterThan(10);
    for (const block of all)
      if (block.directives.skip !== undefined) expect(block.directives.skip).not.toBe('');
  });

  it.concurrent.each(pages.filter((p) => p.blocks.some((b) => !b.directives.skip)))(
    '$page: every block runs as written and the checkout stays clean',
    async ({ page, blocks }) => {
      if (pgMissing && blocks.some((b) => b.directives.postgres)) {
        if (process.env.CI) throw new Error(`${page} needs PostgreSQL: ${pgMissing}`);
        console.warn(
          `${page}: the blocks marked postgres need a server (${pgMissing}); run with CI=1 to require it`,
        );
      }
      const runnable = blocks.filter((b) => !(b.directives.postgres && pgMissing));
      const installs = runnable.some((b) => !b.directives.skip && /\bnpm ci\b/.test(b.code));
      const base = join(WORK, pageSlug(page));
      const copy = join(base, 'checkout');
      const dir = join(base, 'driver');
      copyCheckout(ROOT, copy, installs ? [] : ['node_modules', 'dist']);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'driver.sh'), driverScript(runnable, dir));
      const run = await runPage(copy, dir, userEnv(pg ? { RECIPE_PG_URL: pg.url } : {}));
      writeFileSync(join(dir, 'output.txt'), run.output);
      expect(run.code, failure(runnable, dir, run.output)).toBe(0);
      expect(checkoutChanges(copy), `${page} left these changes in the checkout`).toBe('');
    },
    PAGE_TIMEOUT_MS + 30_000,
  );
});
