/**
 * Multi-environment plan and apply (`--env A --env B`, `--all-envs`): each
 * environment runs the single-environment command with its own CommandIO,
 * so it gets its own config, state (and lock), API client and pacer; up to
 * --env-parallelism run at once, and one failing environment does not stop
 * the others. This module only schedules, collects and prints
 * (fleet-output.ts); the work is the commands' own: the command table
 * (main.ts) hands it the one-environment action to run.
 */
import { CliError, type CommandIO, type RunFigures } from './io.js';
import { parseCount } from './context.js';
import { environmentTargetFlags, resolveInputs, type ConfigInput, type EnvSelection } from './inputs.js';
import { targetGiven } from './where.js';
import { bufferStream, prefixedStream } from './fleet-streams.js';
import { printApplyTable, printPlans, type EnvRun } from './fleet-output.js';
import type { ApplyFlags, PlanFlags } from './definitions.js';

/**
 * The flags a multi-environment run reads, as plan and apply define them
 * (definitions.ts): what picks the environments, and what names one state,
 * target or file (refused with several environments).
 */
export type FleetFlags = Pick<PlanFlags, 'varFile'> &
  Partial<Pick<PlanFlags, 'envParallelism' | 'state' | 'workspace' | 'out' | 'format' | 'detailedExitcode'>> &
  Partial<Pick<ApplyFlags, 'domain' | 'baseUrl' | 'tokenFile'>> & {
    env?: EnvSelection;
    allEnvs?: boolean;
  };

/** A one-environment action: plan's, apply's or destroy's. */
export type SingleRun<F> = (paths: string[], flags: F, cmd: unknown, io: CommandIO) => Promise<number>;

/** True when the flags ask for more than one environment (or all of them). */
export function isFleetRun(flags: Pick<FleetFlags, 'env' | 'allEnvs'>): boolean {
  return flags.allEnvs === true || (Array.isArray(flags.env) && new Set(flags.env).size > 1);
}

/** Flags that name one state, target or file cannot serve several environments. */
function refuseSingleTargetFlags(flags: FleetFlags): void {
  const single: [keyof FleetFlags, string][] = [
    ['state', '--state'],
    ['workspace', '--workspace'],
    ['domain', '--domain'],
    ['baseUrl', '--base-url'],
    ['tokenFile', '--token-file'],
    ['out', '--out'],
  ];
  for (const [key, flag] of single) {
    if (flags[key] !== undefined) {
      throw new CliError(
        `${flag} names one ${key === 'out' ? 'plan file' : 'state or tenant'}, so it cannot serve several environments: ` +
          `set it per environment in tenantform.yaml, or run one environment with --env NAME`,
      );
    }
  }
  if (flags.allEnvs && flags.env !== undefined && (typeof flags.env === 'string' || flags.env.length > 0)) {
    throw new CliError('give either --env NAME (repeatable) or --all-envs, not both');
  }
}

/** Runs `fn` over items with at most `limit` at once; results keep the items' order. */
export async function bounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A mutex for questions: one environment asks at a time. */
function serialConfirm(io: CommandIO): ((env: string, q: string) => Promise<boolean>) | undefined {
  const confirm = io.confirm;
  if (!confirm) return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return (env, question) => {
    const answer = queue.then(() => confirm(`\n[${env}]${question.replace(/^\n/, ' ')}`));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/**
 * The target as tenantform.yaml or else the process environment names it,
 * for the plan table (plan resolves no target): "not set" when neither does.
 */
async function configuredTarget(input: ConfigInput, env: CommandIO['env']): Promise<string> {
  const t = environmentTargetFlags<{ domain?: string; baseUrl?: string }>({}, input);
  if (t.baseUrl !== undefined || t.domain !== undefined) {
    return t.baseUrl ?? `https://${t.domain}/api/v2`;
  }
  if (!targetGiven({}, env)) return 'not set';
  const { resolveTarget } = await import('../api/target.js');
  try {
    return `${resolveTarget({}, env).baseUrl} (from the environment variables)`;
  } catch {
    return 'invalid (in the environment variables)';
  }
}

/**
 * tenantform plan|apply|destroy with several environments: `runOne` once per
 * environment, output as plan (`command` 'plan': each environment's output
 * buffered, then printed in turn) or apply ('apply': lines prefixed with the
 * environment as they come, then a table). Exit codes aggregate: 1 when any
 * environment failed; otherwise, for plan --detailed-exitcode, 2 when any has
 * changes; else 0.
 */
export async function runFleet<F extends FleetFlags>(
  command: 'plan' | 'apply',
  pathArgs: string[],
  flags: F,
  io: CommandIO,
  runOne: SingleRun<F>,
): Promise<number> {
  refuseSingleTargetFlags(flags);
  const parallelism = parseCount(flags.envParallelism ?? '4', '--env-parallelism', 1, 256) ?? 4;
  const inputs = resolveInputs(pathArgs, flags.allEnvs ? undefined : flags.env, [], io, 'all');
  if (inputs.some((i) => i.env === null)) {
    throw new CliError(`--all-envs needs a directory with a tenantform.yaml that names environments`);
  }
  const projectDir = pathArgs.length > 0 ? pathArgs[0]! : '.';
  const confirm = serialConfirm(io);
  const width = Math.max(...inputs.map((i) => i.env!.length));

  const runs = await bounded(inputs, parallelism, async (input): Promise<EnvRun> => {
    const name = input.env!;
    const figures: RunFigures = {};
    const label = `[${name}]`.padEnd(width + 2);
    const out = command === 'plan' ? bufferStream() : prefixedStream(label, io.stdout);
    const err = prefixedStream(label, io.stderr);
    const envIO: CommandIO = {
      stdout: out,
      stderr: err,
      env: io.env,
      cwd: io.cwd,
      ...(confirm ? { confirm: (q: string) => confirm(name, q) } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      report: (f) => Object.assign(figures, f),
    };
    // Plan always learns whether there are changes (exit 2); the aggregate decides what to return.
    const envFlags = { ...flags, env: [name], allEnvs: false, detailedExitcode: true } as F;
    const started = performance.now();
    let code: number;
    try {
      code = await runOne([projectDir], envFlags, undefined, envIO);
    } catch (e) {
      const { reportError } = await import('./errors.js');
      code = reportError(e, envIO);
    }
    out.end();
    err.end();
    return {
      name,
      code,
      figures,
      target: figures.target ?? (await configuredTarget(input, io.env)),
      ms: performance.now() - started,
      output: out.text(),
      errors: err.text(),
    };
  });

  if (command === 'plan') printPlans(runs, flags.format ?? 'text', io);
  else printApplyTable(runs, io);
  if (runs.some((r) => r.code !== 0 && r.code !== 2)) return 1;
  if (command === 'plan' && flags.detailedExitcode && runs.some((r) => r.code === 2)) return 2;
  return 0;
}
