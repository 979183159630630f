/**
 * The pre-commit hooks of .pre-commit-hooks.yaml, run by pre-commit itself
 * (`pre-commit try-repo` this checkout) in a config repository made by
 * `tenantform init`, whose node_modules/tenantform is this checkout (as npm ci
 * would install it): tenantform-fmt rewrites a file out of layout and fails the
 * commit, tenantform-validate fails it on an error, naming file:line:col; both
 * pass once the config is right. Skipped, saying so, where pre-commit is not
 * installed (Debian: apt-get install pre-commit; .ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { tempDir } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const found = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
const preCommit = found.status === 0 ? found.stdout.trim() : null;
if (!preCommit) {
  console.warn(
    'skipping the pre-commit hook tests: pre-commit is not installed (apt-get install pre-commit, as .ci/run does)',
  );
}

let dir: string;
let cleanup: () => void;
let repo: string;

/** A user's shell: this Node first on PATH (tenantform needs 22.19 or later), nothing of npm's run of the tests. */
function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|TENANTFORM_|INIT_CWD$)/i.test(key)) out[key] = value;
  }
  out.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  out.PRE_COMMIT_HOME = join(dir, 'pre-commit-home');
  out.NO_COLOR = '1';
  return out;
}

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { cwd: repo, env: env(), encoding: 'utf8', timeout: 240_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

const tryRepo = () => run('pre-commit', ['try-repo', ROOT, '--all-files', '--color', 'never']);
const POLICIES = 'rate-limit-policies.yaml';

describe.skipIf(!preCommit)(`the pre-commit hooks (${preCommit ?? 'pre-commit not installed'})`, () => {
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir('tenantform-pre-commit-'));
    repo = join(dir, 'repo');
    const quiet = { write: () => true };
    expect(
      await main(['node', 'tenantform', 'init', repo], { stdout: quiet, stderr: quiet, env: {}, cwd: dir }),
    ).toBe(0);
    // As npm ci installs it: node_modules/tenantform and its bin (this checkout, built by npm test).
    mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(ROOT, join(repo, 'node_modules', 'tenantform'));
    symlinkSync('../tenantform/bin/tenantform.js', join(repo, 'node_modules', '.bin', 'tenantform'));
    writeFileSync(
      join(repo, '.gitignore'),
      `${readFileSync(join(repo, '.gitignore'), 'utf8')}node_modules/\n`,
    );
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
      ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'],
    ]) {
      expect(run('git', args).code).toBe(0);
    }
  });
  afterAll(() => cleanup?.());

  it('fail a config out of layout (rewriting it) and one with an error (naming it); pass once it is right', () => {
    const path = join(repo, POLICIES);
    const text = readFileSync(path, 'utf8');
    const edited = text
      .replace(
        '    configuration:\n      action: log\n      limit: 20',
        '    configuration: { action: log, limit: 20 }',
      )
      .replace('      action: block\n      limit: 100\n', '      action: block\n      limit: 99999\n');
    expect(edited).not.toBe(text);
    writeFileSync(path, edited);

    const failed = tryRepo();
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toMatch(
      /tenantform fmt\.+Failed\n- hook id: tenantform-fmt\n- files were modified by this hook/,
    );
    expect(failed.output).toMatch(/tenantform validate\.+Failed/);
    expect(failed.output).toMatch(/rate-limit-policies\.yaml:\d+:\d+: limit must be at most 10000/);
    expect(readFileSync(path, 'utf8')).toContain('    configuration:\n      action: log\n      limit: 20');

    writeFileSync(path, readFileSync(path, 'utf8').replace('limit: 99999', 'limit: 100'));
    const passed = tryRepo();
    expect(passed.code, passed.output).toBe(0);
    expect(passed.output).toMatch(/tenantform fmt\.+Passed/);
    expect(passed.output).toMatch(/tenantform validate\.+Passed/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it("tenantform-fmt leaves another tool's YAML beside the config alone (issue 35, item 7)", () => {
    const compose = 'services: { web: { image: "nginx:1" } }\n';
    const manifest = 'apiVersion: v1\nkind: ConfigMap\ndata: { a: "1" }\n';
    writeFileSync(join(repo, 'docker-compose.yml'), compose);
    mkdirSync(join(repo, 'k8s'), { recursive: true });
    writeFileSync(join(repo, 'k8s', 'cm.yaml'), manifest);
    expect(run('git', ['add', '-A']).code).toBe(0);
    const fmt = run('pre-commit', ['try-repo', ROOT, 'tenantform-fmt', '--all-files', '--color', 'never']);
    expect(fmt.code, fmt.output).toBe(0);
    expect(fmt.output).toMatch(/tenantform fmt\.+Passed/);
    expect(readFileSync(join(repo, 'docker-compose.yml'), 'utf8')).toBe(compose);
    expect(readFileSync(join(repo, 'k8s', 'cm.yaml'), 'utf8')).toBe(manifest);
  });
});
