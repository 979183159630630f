import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exampleResourceCount, kindScopes } from '../../../test/helpers/kind-examples.js';
import { parse } from 'yaml';
import type { CommandIO } from '../io.js';
import { initAction, PACKAGE_SCHEMAS_DIR, scaffoldFiles } from './init.js';
import { readmeMd, workflowYaml } from './init-templates.js';
import { listed } from '../words.js';
import { KINDS, rateLimitPolicy, type KindModule } from '../../resources/index.js';

function bufferIO(cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd,
  };
  return { io, out: () => stdout, err: () => stderr };
}

/** Every file below `dir`, relative, with `/`, sorted. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(dir.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'tenantform-init-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('scaffoldFiles', () => {
  it('finds the package schemas/ directory from the module location', () => {
    expect(existsSync(join(PACKAGE_SCHEMAS_DIR, 'config.schema.json'))).toBe(true);
  });

  it('lists one example per kind, .gitignore, the workflow, a README and every schema', () => {
    const paths = scaffoldFiles().map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'tenantform.yaml',
        'rate-limit-policies.yaml',
        'user-permissions.yaml',
        'token-exchange-profiles.yaml',
        '.gitignore',
        'package.json',
        '.github/workflows/tenantform.yml',
        'README.md',
        'schemas/config.schema.json',
      ]),
    );
    const schemas = readdirSync(PACKAGE_SCHEMAS_DIR).filter((n) => n.endsWith('.schema.json'));
    expect(paths.filter((p) => p.startsWith('schemas/'))).toHaveLength(schemas.length);
  });

  it.each(['rate-limit-policies.yaml', 'user-permissions.yaml', 'token-exchange-profiles.yaml'])(
    'starts %s with the yaml-language-server schema comment',
    (path) => {
      const file = scaffoldFiles().find((f) => f.path === path);
      expect(file?.content.split('\n')[0]).toBe(
        '# yaml-language-server: $schema=./schemas/config.schema.json',
      );
    },
  );

  it('refuses a schemas directory without config.schema.json', () => {
    expect(() => scaffoldFiles(work)).toThrow(/config\.schema\.json/);
  });

  it('ignores state and saved plans in .gitignore', () => {
    const lines = scaffoldFiles()
      .find((f) => f.path === '.gitignore')
      ?.content.split('\n');
    expect(lines).toEqual(expect.arrayContaining(['.tenantform/', '*.tfplan']));
  });

  it('pins tenantform as an exact-version devDependency in package.json', () => {
    const file = scaffoldFiles(PACKAGE_SCHEMAS_DIR, '9.8.7').find((f) => f.path === 'package.json');
    expect(JSON.parse(file!.content)).toEqual({
      private: true,
      description: 'Tenant configuration managed with tenantform',
      devDependencies: { tenantform: '9.8.7' },
      allowScripts: { tenantform: false },
    });
  });

  it('says in the README how to install a release tarball until tenantform is published', () => {
    const readme = scaffoldFiles(PACKAGE_SCHEMAS_DIR, '9.8.7').find((f) => f.path === 'README.md')!.content;
    expect(readme).toContain('npm install --save-dev --save-exact ./vendor/tenantform-9.8.7.tgz');
    // Without --no, npx looks tenantform up on the registry when it is not installed (404 until published).
    expect(readme).toContain('npx --no tenantform validate .');
    expect(readme).not.toMatch(/npx tenantform /);
    expect(readme).not.toMatch(/^tenantform /m);
  });
});

describe('initAction', () => {
  it('creates the directory and every scaffold file, and prints them with the next commands', async () => {
    const { io, out } = bufferIO(work);
    expect(await initAction('repo/config', {}, undefined, io)).toBe(0);
    const expected = scaffoldFiles()
      .map((f) => f.path)
      .sort();
    expect(listFiles(join(work, 'repo/config'))).toEqual(expected);
    expect(readFileSync(join(work, 'repo/config/schemas/config.schema.json'), 'utf8')).toBe(
      readFileSync(join(PACKAGE_SCHEMAS_DIR, 'config.schema.json'), 'utf8'),
    );
    expect(out()).toContain('rate-limit-policies.yaml');
    expect(out()).toContain('.github/workflows/tenantform.yml');
    expect(out()).toContain('  npx --no tenantform validate repo/config  # check the files\n');
    expect(out()).toContain('  npx --no tenantform plan repo/config      # see what apply would do\n');
    expect(out()).toContain('Then pin tenantform in repo/config (npm install there;');
    expect(out()).not.toMatch(/^ {2}tenantform /m);
  });

  it('fills the current directory when DIR is "."', async () => {
    const { io, out } = bufferIO(work);
    expect(await initAction('.', {}, undefined, io)).toBe(0);
    expect(existsSync(join(work, 'user-permissions.yaml'))).toBe(true);
    expect(out()).toContain('npx --no tenantform validate .  ');
  });

  it('keeps unrelated files that are already in DIR', async () => {
    writeFileSync(join(work, 'notes.txt'), 'mine');
    const { io } = bufferIO(work);
    expect(await initAction('.', {}, undefined, io)).toBe(0);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('refuses to overwrite existing files without --force, names them and writes nothing', async () => {
    writeFileSync(join(work, 'README.md'), 'our readme');
    writeFileSync(join(work, '.gitignore'), 'node_modules/\n');
    const { io, err } = bufferIO(work);
    expect(await initAction('.', {}, undefined, io)).toBe(1);
    expect(err()).toContain('README.md');
    expect(err()).toContain('.gitignore');
    expect(err()).toContain('--force');
    expect(listFiles(work)).toEqual(['.gitignore', 'README.md']);
    expect(readFileSync(join(work, 'README.md'), 'utf8')).toBe('our readme');
  });

  it('overwrites existing files with --force and says which', async () => {
    writeFileSync(join(work, 'README.md'), 'our readme');
    const { io, out } = bufferIO(work);
    expect(await initAction('.', { force: true }, undefined, io)).toBe(0);
    expect(readFileSync(join(work, 'README.md'), 'utf8')).not.toBe('our readme');
    expect(out()).toContain('README.md (overwritten)');
  });

  it('refuses a directory that already holds config files, names them and the example resources it would add', async () => {
    mkdirSync(join(work, 'prod'));
    writeFileSync(join(work, 'prod', 'policies.yaml'), 'rate_limit_policies: []\n');
    const { io, err } = bufferIO(work);
    expect(await initAction('.', {}, undefined, io)).toBe(1);
    expect(err()).toContain(
      'Error: . already holds config files; nothing was written:\n  prod/policies.yaml\n',
    );
    expect(err()).toContain(
      `init would add ${exampleResourceCount()} example resources to that config, which the next apply would create on the tenant:\n` +
        '  rate_limit_policy["oauth_authentication_api","client","default"]  (rate-limit-policies.yaml)\n',
    );
    expect(err()).toContain('--force');
    expect(listFiles(work)).toEqual(['prod/policies.yaml']);
  });

  it('adds the examples beside existing config with --force', async () => {
    writeFileSync(join(work, 'policies.yml'), 'rate_limit_policies: []\n');
    const { io } = bufferIO(work);
    expect(await initAction('.', { force: true }, undefined, io)).toBe(0);
    expect(existsSync(join(work, 'rate-limit-policies.yaml'))).toBe(true);
    expect(readFileSync(join(work, 'policies.yml'), 'utf8')).toBe('rate_limit_policies: []\n');
  });

  it('fails when DIR is a file', async () => {
    writeFileSync(join(work, 'taken'), '');
    const { io, err } = bufferIO(work);
    expect(await initAction('taken', { force: true }, undefined, io)).toBe(1);
    expect(err()).toContain('not a directory');
  });

  it('fails, even with --force, when a target path is a directory', async () => {
    mkdirSync(join(work, 'README.md'));
    const { io, err } = bufferIO(work);
    expect(await initAction('.', { force: true }, undefined, io)).toBe(1);
    expect(err()).toContain('README.md');
    expect(listFiles(work)).toEqual([]);
  });
});

describe('what the scaffold says about the kinds', () => {
  /** A kind only this test knows, with scopes of its own. */
  const widget: KindModule = {
    ...rateLimitPolicy,
    name: 'widget',
    title: { one: 'widget', many: 'widgets' },
    config: {
      ...rateLimitPolicy.config,
      file: 'widgets.yaml',
      description: 'Widgets of the tenant. Identity: name.',
    },
    operations: {
      create: { ...rateLimitPolicy.operations.create, scope: 'create:widgets' },
      delete: { ...rateLimitPolicy.operations.delete, profile: 'full', scope: 'delete:widgets' },
      list: { ...rateLimitPolicy.operations.list, scope: 'read:widgets' },
    },
  };

  it('names every scope the kinds’ operations need, under spec and under api: full', () => {
    const comment = workflowYaml([...KINDS, widget])
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .join(' ')
      .replace(/[#\s]+/g, ' ');
    const [spec, full] = comment.split('(with api: full in tenantform.yaml also ');
    for (const scope of kindScopes('spec')) expect(spec).toContain(scope);
    for (const scope of kindScopes('full')) expect(comment).toContain(scope);
    expect(spec).toMatch(/ and create:widgets scopes $/);
    expect(full).toMatch(/, delete:widgets and, for reads, (read:[a-z_]+, )+read:widgets\)$/);
  });

  it('lists every kind’s file in the README', () => {
    const readme = readmeMd('1.0.0', [...KINDS, widget]);
    expect(readme.replace(/\s+/g, ' ')).toContain(
      `The ${listed([...KINDS.map((k) => k.title.many), 'widgets'])} of our tenant,`,
    );
    for (const kind of KINDS) expect(readme).toContain(`| \`${kind.config.file}\` |`);
    expect(readme).toContain('| `widgets.yaml` | widgets of the tenant |');
  });
});

describe('the scaffold workflow', () => {
  type Step = { run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, unknown> };
  type Job = {
    if?: string;
    needs?: string;
    strategy?: unknown;
    environment?: string;
    permissions?: Record<string, string>;
    concurrency?: { group: string; 'cancel-in-progress': boolean };
    steps: Step[];
  };
  const text = workflowYaml(KINDS);
  const workflow = parse(text) as {
    on: { pull_request: unknown; push: { branches: string[] } };
    permissions: Record<string, string>;
    env?: Record<string, string>;
    jobs: Record<string, Job>;
  };
  const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');

  it('runs on pull requests and on pushes to main', () => {
    expect(workflow.on).toHaveProperty('pull_request');
    expect(workflow.on.push.branches).toEqual(['main']);
  });

  it('installs tenantform with npm ci (the lockfile pins it) and runs it only from there', () => {
    for (const job of Object.values(workflow.jobs)) {
      const commands = job.steps.flatMap((s) => (s.run ? [s.run] : []));
      expect(commands[0]).toBe('npm ci');
      for (const command of commands.slice(1)) {
        expect(command).toContain('npx --no tenantform ');
        expect(command.replace(/npx --no tenantform /g, '')).not.toMatch(/(^|[\s($|])tenantform /);
      }
    }
    expect(text).not.toMatch(/npm install|TENANTFORM_VERSION/);
  });

  /** The step of `job` that runs the action the installed package ships, after npm ci. */
  const action = (job: Job) => {
    const at = job.steps.findIndex((s) => s.uses === './node_modules/tenantform');
    expect(at, 'a step uses ./node_modules/tenantform').toBeGreaterThan(0);
    expect(job.steps.slice(0, at).some((s) => s.run === 'npm ci')).toBe(true);
    return job.steps[at]!;
  };

  it('validates with GitHub annotations, and plans each environment with the action on pull requests', () => {
    const plan = workflow.jobs.plan!;
    expect(plan.if).toContain('pull_request');
    expect(runs(workflow.jobs.environments!)).toContain('npx --no tenantform validate . --format github');
    expect(action(plan).with).toEqual({
      command: 'plan',
      environment: '${{ matrix.environment }}',
      backend: 'pg',
      workspace: '${{ matrix.environment }}',
    });
  });

  it('runs a matrix job per environment, listed by tenantform envs (on pull requests: the changed ones)', () => {
    const envs = workflow.jobs.environments!;
    expect(runs(envs)).toMatch(
      /git diff -z --name-only .* \| xargs -0 npx --no tenantform envs \. --format github-matrix --changed/,
    );
    expect(runs(envs)).toContain('matrix=$(npx --no tenantform envs . --format github-matrix)');
    for (const name of ['plan', 'apply']) {
      const job = workflow.jobs[name]!;
      expect(job.needs).toBe('environments');
      expect(job.strategy).toEqual({
        'fail-fast': false,
        matrix: '${{ fromJSON(needs.environments.outputs.matrix) }}',
      });
      // An empty matrix is an error on GitHub: the job is skipped instead.
      expect(job.if).toContain(`needs.environments.outputs.matrix != '{"include":[]}'`);
    }
    expect(workflow.jobs.plan!.concurrency!.group).toBe(
      'tenantform-plan-${{ github.event.pull_request.number }}-${{ matrix.environment }}',
    );
  });

  it('applies on push in a concurrency group per environment that never cancels a running apply', () => {
    const apply = workflow.jobs.apply!;
    expect(apply.if).toContain('push');
    expect(apply.concurrency).toEqual({
      group: 'tenantform-apply-${{ matrix.environment }}',
      'cancel-in-progress': false,
    });
    expect(apply.environment).toBe('${{ matrix.environment }}');
    // The action applies the plan reviewed on the merged pull request, else plans and applies again.
    expect(action(apply).with).toEqual({
      command: 'apply',
      environment: '${{ matrix.environment }}',
      backend: 'pg',
      workspace: '${{ matrix.environment }}',
      'lock-timeout': '5m',
    });
  });

  it('grants least privilege: write pull-request comments only in the plan job, read runs and artifacts in apply', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    // apply finds the merged pull request, its plan run and the artifact of that run.
    expect(workflow.jobs.apply!.permissions).toEqual({
      contents: 'read',
      actions: 'read',
      'pull-requests': 'read',
    });
  });

  it('takes every credential from repository secrets, never inline', () => {
    const envs = Object.values(workflow.jobs).flatMap((job) => job.steps.map((s) => s.env ?? {}));
    const credentials = envs
      .flatMap((env) => Object.entries(env))
      .filter(([k]) => k.startsWith('TENANTFORM_'));
    expect(credentials.length).toBeGreaterThanOrEqual(4);
    for (const [key, value] of credentials) expect(value).toBe(`\${{ secrets.${key} }}`);
    expect(text).not.toMatch(/postgres(ql)?:\/\//);
  });

  it('uses Node 24', () => {
    for (const job of Object.values(workflow.jobs)) {
      const setup = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
      expect(setup?.with?.['node-version']).toBe(24);
    }
  });
});
