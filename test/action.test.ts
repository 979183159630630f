/**
 * The logic of the GitHub Action's steps (action.yml, action/): what to
 * install, the one plan comment per environment, finding the plan reviewed on
 * the merged pull request, and applying it with the fallback to plan and apply
 * again when apply refuses it. Against in-memory GitHub APIs and a tenantform
 * stand-in; test/action-e2e.test.ts runs the same steps with the real CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installPlan } from '../action/install.mjs';
import { pullRequest, type Comment } from './helpers/github-script.js';
import { applyStep, configFlags, planStep, readInputs, type RunResult } from '../action/run.mjs';
import type PostPlan from '../action/comment.cjs';
import type FindPlan from '../action/find-plan.cjs';

const require = createRequire(import.meta.url);
const postPlan = require('../action/comment.cjs') as typeof PostPlan;
const findPlan = require('../action/find-plan.cjs') as typeof FindPlan;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenantform-action-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the install step', () => {
  const actionPath = '/actions/tenantform';
  const at =
    (...present: string[]) =>
    (path: string) =>
      present.includes(path);

  it('runs the installed package the action comes from, without installing anything', () => {
    expect(
      installPlan({ spec: '', actionPath, workspace: '/w', exists: at(`${actionPath}/dist/bundle/cli.cjs`) }),
    ).toEqual({ kind: 'self', bin: `${actionPath}/bin/tenantform.js` });
  });

  it("installs the version of the action's package.json from npm when it runs from a checkout", () => {
    const { version } = require('../package.json') as { version: string };
    const checkout = new URL('..', import.meta.url).pathname;
    expect(installPlan({ spec: '', actionPath: checkout, workspace: '/w', exists: at() })).toEqual({
      kind: 'npm',
      spec: `tenantform@${version}`,
    });
  });

  it('installs a given version, or a tarball relative to the workspace, and refuses anything else', () => {
    expect(installPlan({ spec: 'v1.2.3', actionPath, workspace: '/w', exists: at() })).toEqual({
      kind: 'npm',
      spec: 'tenantform@1.2.3',
    });
    expect(
      installPlan({ spec: './vendor/t.tgz', actionPath, workspace: '/w', exists: at('/w/vendor/t.tgz') }),
    ).toEqual({ kind: 'npm', spec: '/w/vendor/t.tgz' });
    expect(() => installPlan({ spec: './vendor/t.tgz', actionPath, workspace: '/w', exists: at() })).toThrow(
      'the tenantform input names ./vendor/t.tgz, which is not there (looked at /w/vendor/t.tgz)',
    );
    expect(() => installPlan({ spec: 'latest', actionPath, workspace: '/w', exists: at() })).toThrow(
      'the tenantform input "latest" is neither empty, a version',
    );
  });
});

describe('the inputs', () => {
  it('become the flags that choose environment, API profile and state', () => {
    const inputs = readInputs({
      TENANTFORM_COMMAND: 'apply',
      TENANTFORM_ENVIRONMENT: 'prod',
      TENANTFORM_API: 'full',
      TENANTFORM_BACKEND: 'pg',
      TENANTFORM_WORKSPACE: 'prod',
    });
    expect(inputs).toMatchObject({ command: 'apply', path: '.', lockTimeout: '5m' });
    expect(configFlags(inputs)).toEqual([
      '--env',
      'prod',
      '--api',
      'full',
      '--backend',
      'pg',
      '--workspace',
      'prod',
    ]);
    expect(configFlags(readInputs({}))).toEqual([]);
  });

  it.each([
    [{ TENANTFORM_COMMAND: 'destroy' }, 'the command input is "destroy": it must be plan or apply'],
    [{ TENANTFORM_API: 'everything' }, 'the api input is "everything": spec or full'],
    [{ TENANTFORM_BACKEND: 's3' }, 'the backend input is "s3": file or pg'],
  ])('refuses %o', (env, message) => {
    expect(() => readInputs(env)).toThrow(message);
  });
});

/** A tenantform stand-in: answers each command line with the next scripted result, and records them. */
function scripted(...results: Partial<RunResult>[]) {
  const calls: string[] = [];
  const run = async (args: string[]): Promise<RunResult> => {
    calls.push(args.join(' '));
    const next = results.shift();
    if (!next) throw new Error(`unexpected tenantform ${args.join(' ')}`);
    return { code: 0, stdout: '', stderr: '', ...next };
  };
  let summary = '';
  return { run, calls, summary: (text: string) => (summary += text), text: () => summary };
}

describe('the plan step', () => {
  it('saves a sealed plan per environment and keeps its Markdown for the comment and the summary', async () => {
    const t = scripted({ code: 2, stdout: '### tenantform plan\n\nPlan: 1 to create\n' });
    const inputs = readInputs({
      TENANTFORM_ENVIRONMENT: 'prod',
      TENANTFORM_BACKEND: 'pg',
      TENANTFORM_WORKSPACE: 'prod',
    });
    const outputs = await planStep(inputs, { run: t.run, dir, summary: t.summary });
    expect(t.calls).toEqual([
      `plan . --env prod --backend pg --workspace prod --out ${dir}/tenantform-plan-prod.tfplan --format markdown --detailed-exitcode`,
    ]);
    expect(outputs).toEqual({
      changes: 'true',
      'plan-file': `${dir}/tenantform-plan-prod.tfplan`,
      'markdown-file': `${dir}/tenantform-plan-prod.md`,
      artifact: 'tenantform-plan-prod',
    });
    expect(t.text()).toContain('Plan: 1 to create');
  });

  it('fails with the exit code of a plan that failed', async () => {
    const t = scripted({ code: 1, stderr: 'Error: config/x.yaml:3:5: bad' });
    await expect(planStep(readInputs({}), { run: t.run, dir, summary: t.summary })).rejects.toMatchObject({
      exitCode: 1,
    });
  });
});

describe('the apply step', () => {
  const inputs = (extra: Record<string, string> = {}) =>
    readInputs({
      TENANTFORM_COMMAND: 'apply',
      TENANTFORM_ENVIRONMENT: 'prod',
      TENANTFORM_BACKEND: 'pg',
      TENANTFORM_WORKSPACE: 'prod',
      TENANTFORM_PR: '12',
      ...extra,
    });
  const reviewed = () => {
    const file = join(dir, 'tenantform-plan-prod.tfplan');
    writeFileSync(file, '{}');
    return { TENANTFORM_REVIEWED_PLAN: file };
  };
  const APPLY_CONFIG = 'apply . --env prod --backend pg --workspace prod --lock-timeout 5m --auto-approve';

  it('applies the reviewed plan exactly, then finds the config in sync', async () => {
    const t = scripted({ code: 0 }, { code: 0 });
    const result = await applyStep(inputs(reviewed()), t);
    expect(result).toEqual({ code: 0, outcome: 'reviewed' });
    expect(t.calls).toEqual([
      `apply ${dir}/tenantform-plan-prod.tfplan --env prod --lock-timeout 5m --auto-approve`,
      'plan . --env prod --backend pg --workspace prod --detailed-exitcode',
    ]);
    expect(t.text()).toContain('Applied the plan reviewed of #12, exactly as it was shown.');
  });

  it('plans and applies again when apply refuses the reviewed plan (exit 4), and says why in the summary', async () => {
    const stale =
      'Error: the plan was made from state serial 3 (lineage l) but the state is now at serial 4; run tenantform plan again\n';
    const t = scripted({ code: 4, stderr: stale }, { code: 0 });
    const result = await applyStep(inputs(reviewed()), t);
    expect(result).toEqual({ code: 0, outcome: 'replanned' });
    expect(t.calls[1]).toBe(APPLY_CONFIG);
    expect(t.text()).toContain(
      '**The plan reviewed of #12 was refused**: the plan was made from state serial 3 (lineage l) but the state is now at serial 4; run tenantform plan again',
    );
    expect(t.text()).toContain('Planned and applied the config again instead');
  });

  it('stops on a failed apply of the reviewed plan (exit 1): it may have sent requests, so nothing is planned again', async () => {
    const t = scripted({ code: 1, stderr: 'Error: 2 of 5 changes failed' });
    expect(await applyStep(inputs(reviewed()), t)).toEqual({ code: 1, outcome: 'reviewed' });
    expect(t.calls).toHaveLength(1);
    expect(t.text()).toContain('failed (exit code 1)');
  });

  it('applies what the config holds beside the reviewed plan, and says so', async () => {
    const t = scripted({ code: 0 }, { code: 2 }, { code: 0 });
    expect(await applyStep(inputs(reviewed()), t)).toEqual({ code: 0, outcome: 'reviewed+config' });
    expect(t.calls[2]).toBe(APPLY_CONFIG);
    expect(t.text()).toContain('The config still differs from the state after it');
  });

  it('plans and applies when there is no reviewed plan, giving the reason', async () => {
    const t = scripted({ code: 0 });
    const result = await applyStep(
      inputs({ TENANTFORM_NO_PLAN_REASON: 'commit abc1234 was not merged from a pull request' }),
      t,
    );
    expect(result).toEqual({ code: 0, outcome: 'no-reviewed-plan' });
    expect(t.calls).toEqual([APPLY_CONFIG]);
    expect(t.text()).toContain(
      'No reviewed plan to apply (commit abc1234 was not merged from a pull request): planned and applied the config as it is now.',
    );
  });
});

describe('the comment step', () => {
  const context = {
    repo: { owner: 'acme', repo: 'tenant-config' },
    runId: 77,
    serverUrl: 'https://github.com',
    payload: { pull_request: { number: 7, head: { sha: 'abcdef1234567' } } },
  };
  const core = { info: () => {}, notice: (_: string) => {} };
  const post = async (comments: Comment[], environment: string, plan: string) => {
    const markdown = join(dir, `${environment}.md`);
    writeFileSync(markdown, plan);
    const pr = pullRequest(comments);
    const env = {
      TENANTFORM_ENVIRONMENT: environment,
      TENANTFORM_PLAN_MARKDOWN: markdown,
      TENANTFORM_ARTIFACT: `tenantform-plan-${environment}`,
      TENANTFORM_ARTIFACT_URL: 'https://github.com/acme/tenant-config/actions/runs/77/artifacts/5',
    };
    await postPlan({ github: pr.github, context, core, env });
    return pr.calls;
  };

  it('posts one comment per environment, then updates it on the next push', async () => {
    const comments: Comment[] = [];
    expect(await post(comments, 'prod', 'first plan')).toEqual(['create']);
    expect(await post(comments, 'dev', 'dev plan')).toEqual(['create']);
    expect(await post(comments, 'prod', 'second plan')).toEqual(['update 100']);
    expect(comments).toHaveLength(2);
    expect(comments[0]!.body).toMatch(
      /^<!-- tenantform-plan prod -->\n\*\*Environment `prod`\*\*\n\nsecond plan\n/,
    );
    expect(comments[0]!.body).toContain(
      'The sealed plan is the artifact [`tenantform-plan-prod`](https://github.com/acme/tenant-config/actions/runs/77/artifacts/5) of [this run](https://github.com/acme/tenant-config/actions/runs/77) for abcdef1.',
    );
  });

  it("never edits a person's comment that quotes the marker", async () => {
    const comments: Comment[] = [
      { id: 1, body: '<!-- tenantform-plan prod -->\nlooks good', user: { type: 'User' } },
    ];
    expect(await post(comments, 'prod', 'plan')).toEqual(['create']);
    expect(comments[0]!.body).toContain('looks good');
  });

  it('cuts a plan too long for a comment, saying so', async () => {
    const comments: Comment[] = [];
    await post(comments, 'prod', 'x'.repeat(70_000));
    expect(comments[0]!.body.length).toBeLessThanOrEqual(postPlan.COMMENT_LIMIT);
    expect(comments[0]!.body).toContain('the plan is cut here to fit a comment');
    expect(comments[0]!.body).toContain('The sealed plan is the artifact');
  });

  it('posts nothing outside a pull request', async () => {
    const notices: string[] = [];
    const pr = pullRequest([]);
    const result = await postPlan({
      github: pr.github,
      context: { ...context, payload: {} },
      core: { ...core, notice: (m: string) => notices.push(m) },
      env: {},
    });
    expect(result).toBe('skipped');
    expect(pr.calls).toEqual([]);
    expect(notices[0]).toContain('not a pull request');
  });
});

describe('the lookup of the reviewed plan', () => {
  type Run = { id: number; run_number: number; run_attempt: number; artifacts: string[] };
  function repository(pulls: object[], runs: Run[]) {
    const asked: Record<string, unknown>[] = [];
    const github = {
      paginate: async <T>(
        list: (args: Record<string, unknown>) => Promise<{ data: T }>,
        args: Record<string, unknown>,
      ) => (await list(args)).data,
      rest: {
        repos: { listPullRequestsAssociatedWithCommit: async () => ({ data: pulls }) },
        actions: {
          getWorkflowRun: async () => ({ data: { workflow_id: 9 } }),
          listWorkflowRuns: async (args: Record<string, unknown>) => {
            asked.push(args);
            return { data: runs };
          },
          listWorkflowRunArtifacts: async ({ run_id, name }: { run_id: number; name: string }) => ({
            data: {
              artifacts: runs
                .find((r) => r.id === run_id)!
                .artifacts.filter((a) => a === name)
                .map((a) => ({ name: a, expired: false })),
            },
          }),
        },
      },
    };
    return { github, asked };
  }
  const context = {
    eventName: 'push',
    sha: 'merge5678901',
    runId: 500,
    repo: { owner: 'acme', repo: 'cfg' },
  };
  const merged = {
    number: 12,
    merged_at: '2026-11-01T00:00:00Z',
    merge_commit_sha: 'merge5678901',
    head: { sha: 'head999' },
  };

  it('finds the newest completed pull-request run of the merged head that kept the environment artifact', async () => {
    const { github, asked } = repository(
      [merged],
      [
        { id: 1, run_number: 3, run_attempt: 1, artifacts: ['tenantform-plan-prod'] },
        { id: 2, run_number: 5, run_attempt: 1, artifacts: ['tenantform-plan-dev'] },
        { id: 3, run_number: 4, run_attempt: 2, artifacts: ['tenantform-plan-prod'] },
      ],
    );
    expect(await findPlan.findReviewedPlan({ github, context, environment: 'prod' })).toEqual({
      runId: 3,
      artifact: 'tenantform-plan-prod',
      pr: 12,
    });
    expect(asked[0]).toMatchObject({
      workflow_id: 9,
      event: 'pull_request',
      head_sha: 'head999',
      status: 'completed',
    });
  });

  it.each([
    [[], [], 'commit merge56 was not merged from a pull request'],
    [[{ ...merged, merged_at: null }], [], 'commit merge56 was not merged from a pull request'],
    [
      [merged],
      [{ id: 1, run_number: 1, run_attempt: 1, artifacts: [] }],
      'no completed run of this workflow for #12 (commit head999) kept the artifact tenantform-plan-prod',
    ],
  ])('gives the reason when there is none', async (pulls, runs, reason) => {
    const { github } = repository(pulls, runs as Run[]);
    expect(await findPlan.findReviewedPlan({ github, context, environment: 'prod' })).toEqual({ reason });
  });

  it('sets the step outputs', async () => {
    const { github } = repository(
      [merged],
      [{ id: 8, run_number: 1, run_attempt: 1, artifacts: ['tenantform-plan-default'] }],
    );
    const outputs: Record<string, string> = {};
    await findPlan({
      github,
      context,
      core: { setOutput: (k: string, v: string) => (outputs[k] = v), info: () => {} },
      env: {},
    });
    expect(outputs).toEqual({ 'run-id': '8', artifact: 'tenantform-plan-default', pr: '12', reason: '' });
  });
});
