// The action's run step (action.yml): runs tenantform for one environment.
//
// command: plan   plan --out (a sealed saved plan) --format markdown
//                 --detailed-exitcode; the Markdown goes to the log, the job
//                 summary and a file the comment step posts. Outputs: changes,
//                 plan-file, markdown-file, artifact.
// command: apply  applies the sealed plan reviewed on the merged pull request
//                 when the lookup step found and downloaded it. apply PLANFILE
//                 refuses a plan that is stale (the state moved on since), edited
//                 or made for another target with exit code 4 and sends nothing:
//                 then, and when there is no reviewed plan, this plans and applies
//                 the config again, and says so in the job summary. After a reviewed
//                 plan, a config that still differs (a change merged beside it)
//                 is applied too, said as well. Output: outcome.
//
// Every input arrives as an environment variable (TENANTFORM_*, set by action.yml).
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { artifactName } from './find-plan.cjs';

/** apply PLANFILE's exit code when it refuses the saved plan and sends nothing (EXIT_PLAN_REFUSED). */
export const PLAN_REFUSED = 4;

/** The inputs of action.yml, from the step's environment. */
export function readInputs(env) {
  const input = (name, fallback = '') => (env[`TENANTFORM_${name}`] ?? '').trim() || fallback;
  const command = input('COMMAND', 'plan');
  if (command !== 'plan' && command !== 'apply') {
    throw new Error(`the command input is "${command}": it must be plan or apply`);
  }
  const api = input('API');
  if (api !== '' && api !== 'spec' && api !== 'full')
    throw new Error(`the api input is "${api}": spec or full`);
  const backend = input('BACKEND');
  if (backend !== '' && backend !== 'file' && backend !== 'pg') {
    throw new Error(`the backend input is "${backend}": file or pg`);
  }
  return {
    command,
    path: input('PATH', '.'),
    environment: input('ENVIRONMENT'),
    api,
    backend,
    workspace: input('WORKSPACE'),
    lockTimeout: input('LOCK_TIMEOUT', '5m'),
    reviewedPlan: input('REVIEWED_PLAN'),
    noPlanReason: input('NO_PLAN_REASON'),
    pr: input('PR'),
  };
}

/** The flags that choose the environment, API profile and state, for plan and apply of the config. */
export function configFlags(inputs) {
  return [
    ...(inputs.environment ? ['--env', inputs.environment] : []),
    ...(inputs.api ? ['--api', inputs.api] : []),
    ...(inputs.backend ? ['--backend', inputs.backend] : []),
    ...(inputs.workspace ? ['--workspace', inputs.workspace] : []),
  ];
}

/**
 * Plans and saves the sealed plan. `run(args, { stdout })` runs tenantform and
 * resolves with `{ code, stdout, stderr }`. Returns the step's outputs, or
 * throws with the exit code of a failed plan.
 */
export async function planStep(inputs, { run, dir, summary }) {
  const name = artifactName(inputs.environment);
  const planFile = join(dir, `${name}.tfplan`);
  const markdownFile = join(dir, `${name}.md`);
  const args = [
    'plan',
    '.',
    ...configFlags(inputs),
    '--out',
    planFile,
    '--format',
    'markdown',
    '--detailed-exitcode',
  ];
  const result = await run(args);
  if (result.code !== 0 && result.code !== 2) {
    throw Object.assign(new Error(`tenantform plan failed (exit code ${result.code})`), {
      exitCode: result.code,
    });
  }
  writeFileSync(markdownFile, result.stdout);
  summary(`${result.stdout.replace(/\s+$/, '')}\n`);
  return {
    changes: result.code === 2 ? 'true' : 'false',
    'plan-file': planFile,
    'markdown-file': markdownFile,
    artifact: name,
  };
}

/** The reason a refused plan gives: its error line, without "Error: ". */
function refusal(stderr) {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .findLast((l) => l.startsWith('Error: '));
  return (line ?? stderr.trim()).replace(/^Error: /, '');
}

/** Applies the config: plan and apply again. Returns apply's exit code. */
async function applyConfig(inputs, run) {
  const args = ['apply', '.', ...configFlags(inputs), '--lock-timeout', inputs.lockTimeout, '--auto-approve'];
  return (await run(args)).code;
}

/**
 * Applies the reviewed plan, or plans and applies again when there is none
 * or apply refuses it; says which in the job summary. Returns
 * `{ code, outcome }`: outcome is reviewed, reviewed+config, replanned or
 * no-reviewed-plan.
 */
export async function applyStep(inputs, { run, summary }) {
  const heading = `### tenantform apply${inputs.environment ? `: \`${inputs.environment}\`` : ''}\n\n`;
  const from = inputs.pr ? ` of #${inputs.pr}` : '';
  if (!inputs.reviewedPlan || !existsSync(inputs.reviewedPlan)) {
    const why = inputs.noPlanReason || 'no sealed plan was downloaded';
    summary(`${heading}No reviewed plan to apply (${why}): planned and applied the config as it is now.\n`);
    const code = await applyConfig(inputs, run);
    return { code, outcome: 'no-reviewed-plan' };
  }
  const reviewed = await run([
    'apply',
    inputs.reviewedPlan,
    ...(inputs.environment ? ['--env', inputs.environment] : []),
    '--lock-timeout',
    inputs.lockTimeout,
    '--auto-approve',
  ]);
  if (reviewed.code === PLAN_REFUSED) {
    summary(
      `${heading}**The plan reviewed${from} was refused**: ${refusal(reviewed.stderr)}\n\n` +
        'Nothing of it was applied. Planned and applied the config again instead: the changes applied below ' +
        'are the ones this run planned, not the ones shown on the pull request.\n',
    );
    const code = await applyConfig(inputs, run);
    return { code, outcome: 'replanned' };
  }
  if (reviewed.code !== 0) {
    summary(
      `${heading}Applying the plan reviewed${from} failed (exit code ${reviewed.code}): see the job log.\n`,
    );
    return { code: reviewed.code, outcome: 'reviewed' };
  }
  summary(`${heading}Applied the plan reviewed${from}, exactly as it was shown.\n`);
  const check = await run(['plan', '.', ...configFlags(inputs), '--detailed-exitcode']);
  if (check.code === 0) return { code: 0, outcome: 'reviewed' };
  if (check.code !== 2) return { code: check.code, outcome: 'reviewed' };
  summary(
    '\nThe config still differs from the state after it (a change merged beside the pull request): ' +
      'planned and applied that too.\n',
  );
  return { code: await applyConfig(inputs, run), outcome: 'reviewed+config' };
}

/**
 * Runs tenantform `bin` with `args` in `cwd`: its output goes to the log as
 * it comes; stdout is also kept when `keep` says so, stderr always.
 */
export function tenantformRunner(bin, cwd, env = process.env) {
  return (args) =>
    new Promise((done, fail) => {
      console.log(`::group::tenantform ${args.join(' ')}`);
      const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
        process.stdout.write(d);
      });
      child.stderr.on('data', (d) => {
        stderr += d;
        process.stderr.write(d);
      });
      child.on('error', fail);
      child.on('close', (code) => {
        console.log('::endgroup::');
        done({ code: code ?? 1, stdout, stderr });
      });
    });
}

/** The step, with the environment GitHub gives it. */
async function main(env) {
  const inputs = readInputs(env);
  const run = tenantformRunner(env.TENANTFORM_BIN, resolve(env.GITHUB_WORKSPACE ?? '.', inputs.path), env);
  const summary = (text) => env.GITHUB_STEP_SUMMARY && appendFileSync(env.GITHUB_STEP_SUMMARY, text);
  const output = (outputs) => {
    const lines = Object.entries(outputs).map(([k, v]) => `${k}=${v}\n`);
    if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, lines.join(''));
  };
  if (inputs.command === 'plan') {
    output(await planStep(inputs, { run, dir: env.RUNNER_TEMP ?? resolve('.'), summary }));
    return 0;
  }
  const { code, outcome } = await applyStep(inputs, { run, summary });
  output({ outcome });
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.env).then(
    (code) => process.exit(code),
    (err) => {
      console.log(`::error title=tenantform::${err instanceof Error ? err.message : String(err)}`);
      process.exit(err?.exitCode ?? 1);
    },
  );
}
