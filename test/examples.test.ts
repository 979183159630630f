import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCommentScript, type Comment } from './helpers/github-script.js';
import { parse } from 'yaml';
import { packageJson } from '../src/cli/commands/init-templates.js';
import { TOOL_VERSION } from '../src/cli/version.js';
import { main } from '../src/cli/main.js';
import type { CommandIO } from '../src/cli/io.js';
import { loadConfig } from '../src/config/index.js';
import { runCli } from './helpers/cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const examples = join(root, 'examples');
const ENVIRONMENTS = ['dev', 'prod'] as const;

function bufferIO() {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd: root,
  };
  return { io, out: () => stdout, err: () => stderr };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const configArgs = (env: string) => ['examples', '--env', env];

describe.each(ENVIRONMENTS)('examples: the %s environment', (env) => {
  it('validates with its vars file through the CLI', async () => {
    const { io, out, err } = bufferIO();
    expect(await main(['node', 'tenantform', 'validate', ...configArgs(env)], io), err()).toBe(0);
    expect(out()).toMatch(/^Valid: /);
  });

  it('declares 10 to 25 resources, of every kind, from several files', async () => {
    const result = await loadConfig(['examples/common', `examples/${env}`], {
      varFiles: [`examples/vars/${env}.yaml`],
      env: {},
      cwd: root,
    });
    expect(result.issues).toEqual([]);
    const {
      rate_limit_policies: policies,
      user_permissions: permissions,
      token_exchange_profiles: profiles,
    } = result.counts;
    expect(policies + permissions + profiles).toBeGreaterThanOrEqual(10);
    expect(policies + permissions + profiles).toBeLessThanOrEqual(25);
    expect(Math.min(policies, permissions, profiles)).toBeGreaterThan(0);
    expect(result.counts.files).toBeGreaterThanOrEqual(6);
  });

  it('needs its variables: without the vars file every reference is reported', async () => {
    const result = await loadConfig(['examples/common', `examples/${env}`], { env: {}, cwd: root });
    const unresolved = result.issues.filter((i) => i.code === 'VAR_UNRESOLVED').map((i) => i.message);
    for (const name of ['DEFAULT_LIMIT', 'LOGIN_LIMIT', 'SUPPORT_URL']) {
      expect(unresolved.some((m) => m.includes(`variable ${name} `))).toBe(true);
    }
    expect(unresolved.length).toBeGreaterThanOrEqual(3);
  });
});

describe('examples: files', () => {
  const configFiles = ['common', 'dev', 'prod'].flatMap((dir) => yamlFiles(join(examples, dir)));

  it.each(configFiles.map((f) => [f.slice(examples.length + 1)]))(
    '%s starts with the schema comment',
    (file) => {
      const first = readFileSync(join(examples, file), 'utf8').split('\n')[0];
      expect(first).toBe('# yaml-language-server: $schema=../../schemas/config.schema.json');
    },
  );

  it('keeps the vars files outside the config directories, with different values per environment', () => {
    const dev = parse(readFileSync(join(examples, 'vars/dev.yaml'), 'utf8')) as Record<string, unknown>;
    const prod = parse(readFileSync(join(examples, 'vars/prod.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(dev).sort()).toEqual(Object.keys(prod).sort());
    expect(dev).not.toEqual(prod);
  });
});

describe('examples: the GitHub workflow', () => {
  type Step = { run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, unknown> };
  type Job = {
    if?: string;
    needs?: string;
    environment?: string;
    permissions?: Record<string, string>;
    concurrency?: { group: string; 'cancel-in-progress': boolean };
    strategy?: { matrix: { env: string[] } };
    steps: Step[];
  };
  const text = readFileSync(join(examples, '.github/workflows/tenantform.yml'), 'utf8');
  const workflow = parse(text) as {
    on: { pull_request: unknown; push: { branches: string[] } };
    permissions: Record<string, string>;
    jobs: Record<string, Job>;
  };
  const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');

  it('validates with annotations and posts a Markdown plan per environment on pull requests', () => {
    const plan = workflow.jobs.plan!;
    expect(plan.if).toContain('pull_request');
    expect(plan.strategy?.matrix.env).toEqual(['dev', 'prod']);
    expect(runs(plan)).toMatch(/tenantform validate --env .*--format github/);
    expect(runs(plan)).toMatch(
      /tenantform plan --env [\s\S]*--backend pg --workspace [\s\S]*--format markdown > plan\.md/,
    );
    expect(plan.steps.some((s) => s.uses?.startsWith('actions/github-script@'))).toBe(true);
  });

  it.each(ENVIRONMENTS)('applies %s on push to main in its own non-cancelling concurrency group', (env) => {
    const job = workflow.jobs[`apply-${env}`]!;
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(job.if).toContain('push');
    expect(job.environment).toBe(env);
    expect(job.concurrency).toEqual({ group: `tenantform-apply-${env}`, 'cancel-in-progress': false });
    const run = runs(job);
    expect(run).toContain(`tenantform apply --env ${env}`);
    expect(run).toContain(`--backend pg --workspace ${env}`);
    expect(run).toContain('--auto-approve');
  });

  it('posts one plan comment per environment and updates it on the next push', async () => {
    const script = workflow.jobs.plan!.steps.find((s) => s.uses?.startsWith('actions/github-script@'))!.with!
      .script as string;
    const comments: Comment[] = [{ id: 1, body: 'looks good', user: { type: 'User' } }];
    expect(await runCommentScript(script, comments, 'plan one', { PLAN_ENV: 'dev' })).toEqual(['create']);
    expect(await runCommentScript(script, comments, 'plan one', { PLAN_ENV: 'prod' })).toEqual(['create']);
    expect(await runCommentScript(script, comments, 'plan two', { PLAN_ENV: 'dev' })).toEqual(['update 101']);
    expect(comments.map((c) => c.body.includes('plan two'))).toEqual([false, true, false]);
    expect(comments[1]!.body).toContain('dev');
  });

  it('installs tenantform with npm ci (pinned by package.json and its lockfile) and runs it only from there', () => {
    for (const job of Object.values(workflow.jobs)) {
      const commands = job.steps.flatMap((s) => (s.run ? [s.run] : []));
      expect(commands[0]).toBe('npm ci');
      for (const command of commands.slice(1)) expect(command).toMatch(/^npx --no tenantform /);
    }
    expect(text).not.toMatch(/npm install|TENANTFORM_VERSION/);
    const pkg = readFileSync(join(examples, 'package.json'), 'utf8');
    expect(pkg).toBe(packageJson(TOOL_VERSION));
  });

  it('applies prod only after dev succeeded', () => {
    expect(workflow.jobs['apply-prod']!.needs).toBe('apply-dev');
  });

  it('grants least privilege', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    for (const env of ENVIRONMENTS) expect(workflow.jobs[`apply-${env}`]!.permissions).toBeUndefined();
  });

  it('takes every credential from secrets, never inline', () => {
    const entries = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.flatMap((s) => Object.entries(s.env ?? {})),
    );
    const credentials = entries.filter(([k]) => k.startsWith('TENANTFORM_'));
    expect(credentials.map(([k]) => k)).toEqual(
      expect.arrayContaining([
        'TENANTFORM_PG_URL',
        'TENANTFORM_DOMAIN',
        'TENANTFORM_CLIENT_ID',
        'TENANTFORM_CLIENT_SECRET',
      ]),
    );
    for (const [key, value] of credentials) expect(value).toBe(`\${{ secrets.${key} }}`);
    expect(text).not.toMatch(/postgres(ql)?:\/\//);
  });
});

describe('examples: the project file', () => {
  it('validates every environment with `validate examples`', async () => {
    const result = await runCli(['validate', 'examples'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Environment dev:');
    expect(result.stdout).toContain('Environment prod:');
  });

  it('asks for --env when planning a project without one, naming the environments', async () => {
    const result = await runCli(['plan', 'examples'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('choose one with --env NAME');
    expect(result.stderr).toContain('dev, prod');
  });
});
