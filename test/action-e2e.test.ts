/**
 * The action's plan and apply steps (action/run.mjs) with the real CLI
 * against the emulator: the sealed plan a pull request reviewed is applied
 * exactly on merge; one that is stale or edited is refused by apply (exit 4,
 * nothing sent), and the step plans and applies again, saying so in the job
 * summary. One run goes through `node action/run.mjs` as action.yml starts
 * it (inputs from the environment, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyStep, planStep, readInputs, type Run } from '../action/run.mjs';
import { runCli } from './helpers/cli.js';
import { useEmulatorWorkspace } from './helpers/e2e.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const policy = (selector: string, limit: number) =>
  `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: { action: block, limit: ${limit} }
`;
const CONFIG = `rate_limit_policies:\n${policy('default', 100)}`;

const ws = useEmulatorWorkspace({ 'policies.yaml': CONFIG });
const config = () => join(ws.dir, 'config');
const target = () => ({ TENANTFORM_BASE_URL: ws.emulator.baseUrl, TENANTFORM_TOKEN: ws.emulator.token });

/** tenantform in-process in the config directory, as the action's runner starts it there. */
const run: Run = (args) => runCli(args, { cwd: config(), env: target() });

function steps() {
  let summary = '';
  return { run, summary: (text: string) => (summary += text), text: () => summary };
}

const limits = () => ws.emulator.snapshot().rateLimitPolicies.map((p) => p.configuration);

describe('the action against the emulator', () => {
  it('applies the reviewed plan; an edited one is refused and the config is planned and applied again', async () => {
    const s = steps();
    const planned = await planStep(readInputs({}), { ...s, dir: ws.dir });
    expect(planned.changes).toBe('true');
    expect(readFileSync(planned['markdown-file'], 'utf8')).toContain('to create');

    // Someone edits the uploaded artifact: the limit 100 becomes 0.
    const plan = JSON.parse(readFileSync(planned['plan-file'], 'utf8'));
    plan.changes[0].after.configuration.limit = 0;
    writeFileSync(planned['plan-file'], JSON.stringify(plan));
    const sent = ws.emulator.requestCount();

    const applied = await applyStep(
      readInputs({
        TENANTFORM_COMMAND: 'apply',
        TENANTFORM_REVIEWED_PLAN: planned['plan-file'],
        TENANTFORM_PR: '3',
      }),
      s,
    );
    expect(applied).toEqual({ code: 0, outcome: 'replanned' });
    expect(s.text()).toMatch(
      /\*\*The plan reviewed of #3 was refused\*\*: .*was changed after tenantform plan --out sealed it/,
    );
    expect(ws.emulator.requestCount()).toBeGreaterThan(sent);
    expect(limits()).toEqual([{ action: 'block', limit: 100 }]);
  });

  it('applies the reviewed plan exactly, and applies a change merged beside it afterwards', async () => {
    const s = steps();
    const planned = await planStep(readInputs({}), { ...s, dir: ws.dir });
    // A second change reaches main beside the reviewed one, and nothing applied it.
    ws.write('more.yaml', `rate_limit_policies:\n${policy('third_party_clients', 5)}`);
    const applied = await applyStep(
      readInputs({ TENANTFORM_COMMAND: 'apply', TENANTFORM_REVIEWED_PLAN: planned['plan-file'] }),
      s,
    );
    expect(applied).toEqual({ code: 0, outcome: 'reviewed+config' });
    expect(s.text()).toContain('Applied the plan reviewed, exactly as it was shown.');
    expect(limits()).toHaveLength(2);
    expect((await run(['plan', '.', '--detailed-exitcode'])).code).toBe(0);
  });

  it('runs as action.yml starts it: plan, apply the reviewed plan, then refuse it once stale and apply again', async () => {
    const github = (name: string) => {
      const file = join(ws.dir, name);
      writeFileSync(file, '');
      return file;
    };
    // Not spawnSync: the emulator answers from this process.
    const step = async (env: Record<string, string>) => {
      const files = { GITHUB_OUTPUT: github('output'), GITHUB_STEP_SUMMARY: github('summary') };
      const child = spawn(process.execPath, [join(ROOT, 'action', 'run.mjs')], {
        env: {
          PATH: process.env.PATH,
          NO_COLOR: '1',
          ...target(),
          ...files,
          GITHUB_WORKSPACE: ws.dir,
          RUNNER_TEMP: ws.dir,
          TENANTFORM_BIN: join(ROOT, 'bin', 'tenantform.js'),
          TENANTFORM_PATH: 'config',
          ...env,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const status = await new Promise<number | null>((done) => child.once('close', done));
      const output = Object.fromEntries(
        readFileSync(files.GITHUB_OUTPUT, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(/=(.*)/).slice(0, 2)),
      );
      return { status, stdout, stderr, output, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') };
    };

    const plan = await step({ TENANTFORM_COMMAND: 'plan' });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.output).toMatchObject({ changes: 'true', artifact: 'tenantform-plan-default' });
    expect(plan.stdout).toContain('::group::tenantform plan . --out');
    expect(plan.summary).toContain('to create');

    const apply = { TENANTFORM_COMMAND: 'apply', TENANTFORM_REVIEWED_PLAN: plan.output['plan-file']! };
    const reviewed = await step(apply);
    expect(reviewed.status, reviewed.stderr).toBe(0);
    expect(reviewed.output).toEqual({ outcome: 'reviewed' });
    expect(limits()).toEqual([{ action: 'block', limit: 100 }]);

    // The same plan again: the state has moved on since it was made.
    const stale = await step(apply);
    expect(stale.status, stale.stderr).toBe(0);
    expect(stale.output).toEqual({ outcome: 'replanned' });
    expect(stale.summary).toMatch(/was refused\*\*: the plan was made from .* run tenantform plan again/);
    expect(limits()).toEqual([{ action: 'block', limit: 100 }]);
  });
});
