/**
 * A multi-environment run (a FleetRequest): each environment is its own plan
 * or apply run (runPlan, runApply), so it has its own config, state (and
 * lock), API client and pacer; nothing is shared across tenants, pacing
 * included. Up to `parallelism` environments run at once, and one failing
 * does not stop the others. Each is told to its own view (FleetView.open);
 * the result says, in the request's order, how each ended, its figures,
 * target and time, and whether any failed or has changes (the exit code's
 * data).
 */
import { isIncomplete, runApply, type ApplyRunResult } from './apply.js';
import { runPlan, type PlanMaker, type PlanResult } from './plan.js';
import type { ConfigInput, FleetEnvironment, FleetRequest, RunIO } from './requests.js';
import { environmentTarget, targetGiven } from './state-store.js';
import type { RunFigures, RunView } from './view.js';

/** How one environment's run ended: its run's result, or the error that stopped it. */
export type EnvironmentOutcome =
  | { kind: 'plan'; result: PlanResult }
  | { kind: 'apply'; result: ApplyRunResult }
  | { kind: 'error'; error: unknown };

/** An environment's result: `ok` (planned without changes, or applied completely), `changes` (planned with changes), `failed`. */
export type EnvironmentStatus = 'ok' | 'changes' | 'failed';

/**
 * The target an environment's row names: the one apply sent to, else the one
 * tenantform.yaml gives it (`fromVariables` false), else the process
 * environment's (true); none, or one the variables give that does not resolve.
 */
export type FleetTarget =
  { kind: 'set'; baseUrl: string; fromVariables: boolean } | { kind: 'unset' } | { kind: 'invalid' };

/** One environment of a multi-environment run, as it ended. */
export interface EnvironmentResult {
  name: string;
  status: EnvironmentStatus;
  outcome: EnvironmentOutcome;
  /** What its run told of itself (RunEvent `figures`): state, changes, requests, … */
  figures: RunFigures;
  target: FleetTarget;
  /** Its time, from start to its view closed. */
  ms: number;
}

/** A multi-environment run's result: each environment in the request's order, and what decides the exit code. */
export interface FleetResult {
  environments: EnvironmentResult[];
  /** Some environment failed. */
  failed: boolean;
  /** Some plan has changes. */
  changes: boolean;
}

/** Where one environment's run is told, opened as it starts. */
export interface EnvironmentView {
  io: RunIO;
  view: RunView;
  /** Its run ended (an error thrown included): the last thing told of it. */
  close(outcome: EnvironmentOutcome): void;
}

/** What a multi-environment run tells: each environment apart from the others. */
export interface FleetView {
  open(environment: FleetEnvironment): EnvironmentView;
}

/** Makes the saved plans (runPlan), and times each environment (default: performance.now). */
export interface FleetMaker extends PlanMaker {
  clock?: () => number;
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

function statusOf(outcome: EnvironmentOutcome): EnvironmentStatus {
  if (outcome.kind === 'error') return 'failed';
  if (outcome.kind === 'plan') {
    if (outcome.result.status === 'stopped') return 'failed';
    return outcome.result.hasChanges ? 'changes' : 'ok';
  }
  const run = outcome.result;
  if (run.status === 'nothing-to-apply') return 'ok';
  if (run.status !== 'applied') return 'failed';
  return isIncomplete(run.result, run.interrupted) || run.commitFailed ? 'failed' : 'ok';
}

/**
 * The target as tenantform.yaml or else the process environment names it,
 * for the row of an environment that sent nothing (plan resolves no target).
 */
async function configuredTarget(input: ConfigInput, env: RunIO['env']): Promise<FleetTarget> {
  const t = environmentTarget({}, input);
  if (t.baseUrl !== undefined || t.domain !== undefined) {
    return { kind: 'set', baseUrl: t.baseUrl ?? `https://${t.domain}/api/v2`, fromVariables: false };
  }
  if (!targetGiven({}, env)) return { kind: 'unset' };
  const { resolveTarget } = await import('../api/target.js');
  try {
    return { kind: 'set', baseUrl: resolveTarget({}, env).baseUrl, fromVariables: true };
  } catch {
    return { kind: 'invalid' };
  }
}

/** `view` with the figures its run tells kept in `figures`. */
function keepingFigures(view: RunView, figures: RunFigures): RunView {
  return {
    ...view,
    event(event) {
      if (event.kind === 'figures') Object.assign(figures, event.figures);
      view.event(event);
    },
  };
}

/** One environment's run, its error caught: another environment's does not stop for it. */
async function outcomeOf(
  environment: FleetEnvironment,
  opened: EnvironmentView,
  view: RunView,
  maker: PlanMaker,
): Promise<EnvironmentOutcome> {
  try {
    if ('problem' in environment) return { kind: 'error', error: environment.problem };
    if (environment.command === 'plan')
      return { kind: 'plan', result: await runPlan(environment.request, opened.io, view, maker) };
    return { kind: 'apply', result: await runApply(environment.request, opened.io, view) };
  } catch (error) {
    return { kind: 'error', error };
  }
}

async function runEnvironment(
  environment: FleetEnvironment,
  fleetView: FleetView,
  maker: FleetMaker,
): Promise<EnvironmentResult> {
  const clock = maker.clock ?? (() => performance.now());
  const started = clock();
  const opened = fleetView.open(environment);
  const figures: RunFigures = {};
  const outcome = await outcomeOf(environment, opened, keepingFigures(opened.view, figures), maker);
  opened.close(outcome);
  const target: FleetTarget =
    figures.target !== undefined
      ? { kind: 'set', baseUrl: figures.target, fromVariables: false }
      : await configuredTarget(environment.input, opened.io.env);
  return {
    name: environment.name,
    status: statusOf(outcome),
    outcome,
    figures,
    target,
    ms: clock() - started,
  };
}

/** Runs a multi-environment request: every environment, told to its view, its result kept. */
export async function runFleet(
  request: FleetRequest,
  view: FleetView,
  maker: FleetMaker,
): Promise<FleetResult> {
  const environments = await bounded(request.environments, request.parallelism, (environment) =>
    runEnvironment(environment, view, maker),
  );
  return {
    environments,
    failed: environments.some((e) => e.status === 'failed'),
    changes: environments.some((e) => e.status === 'changes'),
  };
}
