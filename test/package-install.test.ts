/**
 * The real distribution: `npm pack` this checkout, install the tarball into a
 * config repository that holds nothing else (the way docs/ci.md says, then
 * `npm ci` as CI does), and run validate, plan and apply against the emulator
 * through `npx --no tenantform`. A file missing from package.json's `files`
 * fails here. Then the "rehearse in CI" recipe of docs/emulator.md runs as written.
 *
 * Installing pulls tenantform's dependencies from the npm registry (or npm's
 * cache). The recipe needs PostgreSQL (TENANTFORM_PG_URL), as in CI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_VERSION } from '../src/cli/version.js';
import { tempDir } from './helpers/cli.js';
import { dropWorkspace } from './state-pg-support.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PG_URL = process.env.TENANTFORM_PG_URL;
const tarball = `tenantform-${TOOL_VERSION}.tgz`;

let work: string;
let cleanup: () => void;
let repo: string;
const children: ChildProcess[] = [];
const workspaces: string[] = [];

/** The environment of a user's shell: no npm_* variables of the npm run that started vitest, this Node first. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && !key.startsWith('TENANTFORM_') && key !== 'INIT_CWD') env[key] = value;
  }
  env.PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  env.NO_COLOR = '1';
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, env: userEnv(extra), encoding: 'utf8', timeout: 240_000 });
  const output = `${result.stdout}${result.stderr}`;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, output };
}

function npm(args: string[], cwd: string) {
  const result = run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd);
  expect(result.code, result.output).toBe(0);
  return result;
}

const tenantform = (args: string[], extra: Record<string, string> = {}) =>
  run('npx', ['--no', 'tenantform', ...args], repo, extra);

/** Starts the installed emulator directly (not through npx, whose kill would leave it running). */
async function startInstalledEmulator(): Promise<{ base_url: string; token: string }> {
  const child = spawn(join(repo, 'node_modules/.bin/tenantform'), ['emulator', '--port', '0', '--json'], {
    cwd: repo,
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return JSON.parse(line) as { base_url: string; token: string };
  throw new Error('the installed emulator exited without printing its address');
}

/** The sh block of docs/emulator.md whose recipe annotation says this test runs it. */
function rehearsalRecipe(): string {
  const readme = readFileSync(join(root, 'docs/emulator.md'), 'utf8');
  const marker = readme.indexOf('test/package-install.test.ts runs this block as written -->');
  expect(marker).toBeGreaterThan(0);
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
  return match![1]!;
}

beforeAll(() => {
  ({ dir: work, cleanup } = tempDir('tenantform-package-'));
  expect(existsSync(join(root, 'dist/cli/main.js')), 'run npm run build first').toBe(true);
  // prepack and postpack by hand: they take the checkout's "prepare" out of the packed package.json.
  // Not `npm pack` with its scripts: it also runs "prepare", rebuilding dist/ (dist/bundle/ removed
  // first) while the other test files run the CLI from it.
  const manifest = (step: string) => {
    const result = run(process.execPath, ['scripts/pack-manifest.mjs', step], root);
    expect(result.code, result.output).toBe(0);
  };
  manifest('strip');
  try {
    npm(['pack', '--ignore-scripts', '--pack-destination', work], root);
  } finally {
    manifest('restore');
  }

  // A config repository as the examples lay it out, with nothing of this checkout in reach.
  repo = join(work, 'repo');
  for (const part of ['common', 'dev', 'prod', 'vars', 'tenantform.yaml', 'package.json'])
    cpSync(join(root, 'examples', part), join(repo, part), { recursive: true });
  // docs/ci.md's install, for a tarball kept in the repository.
  mkdirSync(join(repo, 'vendor'));
  cpSync(join(work, tarball), join(repo, 'vendor', tarball));
  const install = npm(['install', '--save-dev', '--save-exact', `./vendor/${tarball}`], repo);
  expect(install.output).not.toMatch(/install-scripts/);
  // Then CI's install, from the lockfile alone (allowScripts in package.json keeps npm 11 quiet).
  const ci = npm(['ci'], repo);
  expect(ci.output).not.toMatch(/install-scripts/);
}, 600_000);

afterAll(async () => {
  for (const child of children) child.kill();
  for (const workspace of workspaces) await dropWorkspace(workspace);
  cleanup?.();
});

describe('the packed tarball, installed into an empty config repository', () => {
  it('ships no install script: its package.json has no "prepare" (the checkout\'s build step)', () => {
    const shipped = JSON.parse(
      readFileSync(join(repo, 'node_modules', 'tenantform', 'package.json'), 'utf8'),
    ) as { scripts?: Record<string, string> };
    expect(shipped.scripts?.prepare).toBeUndefined();
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toContain(
      '"prepare": "node scripts/prepare.mjs"',
    );
  });

  it('is pinned by the lockfile, with its checksum', () => {
    const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; integrity?: string; version?: string }>;
    };
    const entry = lock.packages['node_modules/tenantform']!;
    expect(entry.version).toBe(TOOL_VERSION);
    expect(entry.resolved).toBe(`file:vendor/${tarball}`);
    expect(entry.integrity).toMatch(/^sha512-/);
  });

  it('ships the GitHub Action: uses: ./node_modules/tenantform runs the installed copy, installing nothing', () => {
    const action = join(repo, 'node_modules', 'tenantform');
    for (const file of [
      'action.yml',
      'action/install.mjs',
      'action/run.mjs',
      'action/comment.cjs',
      'action/find-plan.cjs',
    ]) {
      expect(existsSync(join(action, file)), file).toBe(true);
    }
    const output = join(work, 'install-output');
    writeFileSync(output, '');
    const install = run(process.execPath, [join(action, 'action', 'install.mjs')], repo, {
      TENANTFORM_ACTION_PATH: action,
      GITHUB_OUTPUT: output,
      GITHUB_WORKSPACE: repo,
    });
    expect(install.code, install.output).toBe(0);
    expect(install.stdout).not.toContain('npm install');
    expect(readFileSync(output, 'utf8')).toBe(
      `bin=${join(action, 'bin', 'tenantform.js')}\nversion=${TOOL_VERSION}\n`,
    );
  });

  it('validates, plans and applies against the emulator through npx --no tenantform', async () => {
    const validate = tenantform(['validate', '.']);
    expect(validate.code, validate.output).toBe(0);
    expect(validate.stdout).toMatch(/^Valid/m);

    const emulator = await startInstalledEmulator();
    const env = { TENANTFORM_BASE_URL: emulator.base_url, TENANTFORM_TOKEN: emulator.token };
    const plan = tenantform(['plan', '--env', 'prod', '--detailed-exitcode'], env);
    expect(plan.code, plan.output).toBe(2);
    expect(plan.stderr).toContain(`Target: ${emulator.base_url}`);
    expect(plan.stdout).toMatch(/Plan: \d+ to create/);

    const apply = tenantform(['apply', '--env', 'prod', '--auto-approve'], env);
    expect(apply.code, apply.output).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: \d+ created, \d+ assigned\./);

    const again = tenantform(['plan', '--env', 'prod', '--detailed-exitcode'], env);
    expect(again.code, again.output).toBe(0);
  }, 300_000);
});

describe("init's Next: lines", () => {
  it('run as written where init ran, through the installed package', () => {
    // Beside the repository (whose own config the other tests read), from inside it.
    const init = tenantform(['init', '../infra']);
    expect(init.code, init.output).toBe(0);
    const next = init.stdout
      .slice(init.stdout.indexOf('\nNext:\n'))
      .split('\n')
      .filter((line) => line.startsWith('  npx '))
      .map((line) => line.replace(/\s+#.*$/, '').trim());
    expect(next).toEqual([
      `npx --no tenantform validate ${join(work, 'infra')}`,
      `npx --no tenantform plan ${join(work, 'infra')}`,
      'npx --no tenantform emulator',
    ]);
    // The emulator runs until stopped: the other two, in a shell, as a user would.
    for (const line of next.slice(0, 2)) {
      const result = run('sh', ['-c', line], repo);
      expect(result.code, `${line}\n${result.output}`).toBe(0);
    }
  }, 120_000);
});

describe.skipIf(!PG_URL && !process.env.CI)("the emulator page's rehearse-in-CI recipe", () => {
  it('runs as written: from a copy of the real state, on a free port, leaving the real state alone', async () => {
    expect(PG_URL, 'the recipe needs TENANTFORM_PG_URL (CI provides it)').toBeTruthy();
    // An environment (and pg workspace) of its own, so that concurrent runs never meet.
    const name = `rehearsal_${randomUUID().slice(0, 8)}`;
    writeFileSync(
      join(repo, 'tenantform.yaml'),
      `environments:\n  ${name}: { paths: [common, prod], var_files: [vars/prod.yaml] }\n`,
    );
    const pg = { TENANTFORM_PG_URL: PG_URL! };
    const flags = ['--env', name, '--backend', 'pg', '--workspace', name];

    // The "real" tenant: applied once, then the config changes, so the rehearsal has work to do.
    const real = await startInstalledEmulator();
    const realEnv = { ...pg, TENANTFORM_BASE_URL: real.base_url, TENANTFORM_TOKEN: real.token };
    const first = tenantform(['apply', ...flags, '--auto-approve'], realEnv);
    expect(first.code, first.output).toBe(0);
    const policies = join(repo, 'prod', 'client-policies.yaml');
    writeFileSync(policies, readFileSync(policies, 'utf8').replace('limit: 1500', 'limit: 1200'));
    const before = tenantform(['state', 'list', ...flags], pg);
    expect(before.code, before.output).toBe(0);

    workspaces.push(name);
    const script = join(work, 'rehearse.sh');
    writeFileSync(script, rehearsalRecipe());
    const rehearsal = run('bash', [script], repo, { ...pg, ENVIRONMENT: name });
    expect(rehearsal.code, rehearsal.output).toBe(0);
    expect(rehearsal.stdout).toMatch(/State: {2}\/.*\/state\.json\n/);
    expect(rehearsal.stdout).toContain('Plan: 0 to create, 1 to replace');
    expect(rehearsal.stdout).toContain('Apply complete: 1 replaced.');

    // The real state is untouched and still plans the replacement.
    const after = tenantform(['state', 'list', ...flags], pg);
    expect(after.stdout).toBe(before.stdout);
    const plan = tenantform(['plan', ...flags, '--detailed-exitcode'], pg);
    expect(plan.code, plan.output).toBe(2);
  }, 300_000);
});
