/**
 * Multi-environment plan and apply (`--env A --env B`, `--all-envs`): the
 * flags as a FleetRequest (requests.ts), run by runFleet (src/run/fleet.ts),
 * which runs each environment as its own plan or apply. This module gives
 * each environment its output (plan: buffered, printed whole and in order;
 * apply: lines prefixed as they come, fleet-streams.ts), its view (the one
 * command's own, commands/plan.ts and commands/apply.ts), one question at a
 * time, and prints the result (fleet-output.ts) and its exit code.
 */
import {
  runFleet as runFleetRequest,
  type EnvironmentOutcome,
  type FleetTarget,
  type RunView,
} from '../run/index.js';
import type { FleetEnvironment } from '../run/requests.js';
import { runIO } from './context.js';
import { reportError } from './errors.js';
import { bufferStream, prefixedStream, type EnvStream } from './fleet-streams.js';
import { printApplyTable, printPlans, type EnvRun } from './fleet-output.js';
import type { CommandIO } from './io.js';
import { unexpectedEvent } from './run-view.js';
import type { FleetFlags } from './fleet-flags.js';
import { parseFleetRequest } from './requests.js';
import { TOOL_VERSION } from './version.js';

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

/** An environment's target in its table row. */
function targetText(target: FleetTarget): string {
  if (target.kind === 'unset') return 'not set';
  if (target.kind === 'invalid') return 'invalid (in the environment variables)';
  return target.fromVariables ? `${target.baseUrl} (from the environment variables)` : target.baseUrl;
}

/** The view of an environment whose request was refused: its run never starts, so nothing is told to it. */
const NO_RUN: RunView = {
  event: unexpectedEvent,
  showPlan: () => Promise.reject(new Error('an environment refused shows no plan')),
  confirm: () => Promise.reject(new Error('an environment refused asks nothing')),
};

/**
 * One environment's view, the one command's own, and what it says last
 * (apply: its exit's words, as the one command says them; plan: nothing).
 */
async function commandViews() {
  const { planView } = await import('./commands/plan.js');
  const { applyView, finish } = await import('./commands/apply.js');
  return (environment: FleetEnvironment, io: CommandIO) => {
    const none = (_outcome: EnvironmentOutcome) => undefined;
    if (!('request' in environment)) return { view: NO_RUN, last: none };
    if (environment.command === 'plan') return { view: planView(environment.request, io), last: none };
    const { request } = environment;
    const last = (outcome: EnvironmentOutcome) =>
      void (outcome.kind === 'apply' && finish(outcome.result, request, io));
    return { view: applyView(request, io), last };
  };
}

/** One environment's output streams. */
type Streams = { out: EnvStream; err: EnvStream };

/**
 * The views of a multi-environment run: each environment's CommandIO (its
 * streams, the serialized question), and at its end what the one command
 * says last (apply: cancelled, nothing to apply; an error: reportError).
 */
async function fleetView(command: 'plan' | 'apply', names: readonly string[], io: CommandIO) {
  const commandView = await commandViews();
  const confirm = serialConfirm(io);
  const width = Math.max(...names.map((n) => n.length));
  const streams = new Map<string, Streams>();
  const open = (environment: FleetEnvironment) => {
    const { name } = environment;
    const label = `[${name}]`.padEnd(width + 2);
    const out = command === 'plan' ? bufferStream() : prefixedStream(label, io.stdout);
    const err = prefixedStream(label, io.stderr);
    streams.set(name, { out, err });
    const envIO: CommandIO = {
      stdout: out,
      stderr: err,
      env: io.env,
      cwd: io.cwd,
      ...(confirm ? { confirm: (q: string) => confirm(name, q) } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    };
    const { view, last } = commandView(environment, envIO);
    const close = (outcome: EnvironmentOutcome) => {
      if (outcome.kind === 'error') reportError(outcome.error, envIO);
      else last(outcome);
      out.end();
      err.end();
    };
    return { io: runIO(envIO), view, close };
  };
  return { view: { open }, streams };
}

/**
 * tenantform plan|apply with several environments: each environment's output
 * as plan (`command` 'plan': buffered, then printed in turn) or apply
 * ('apply': lines prefixed with the environment as they come, then a table).
 * Exit codes aggregate: 1 when any environment failed; otherwise, for plan
 * --detailed-exitcode, 2 when any has changes; else 0.
 */
export async function runFleet(
  command: 'plan' | 'apply',
  pathArgs: string[],
  flags: FleetFlags,
  io: CommandIO,
): Promise<number> {
  const { requireFull } = await import('./tenant-read.js');
  const { looksLikePlanFile } = await import('./commands/apply.js');
  const request = parseFleetRequest(command, pathArgs, flags, io, {
    requireFull,
    isPlanFile: looksLikePlanFile,
  });
  const names = request.environments.map((e) => e.name);
  const { view, streams } = await fleetView(command, names, io);
  const result = await runFleetRequest(request, view, { toolVersion: TOOL_VERSION });
  const runs = result.environments.map((r): EnvRun => ({
    ...r,
    target: targetText(r.target),
    output: streams.get(r.name)!.out.text(),
    errors: streams.get(r.name)!.err.text(),
  }));
  if (command === 'plan') printPlans(runs, flags.format ?? 'text', io);
  else printApplyTable(runs, io);
  if (result.failed) return 1;
  return command === 'plan' && flags.detailedExitcode && result.changes ? 2 : 0;
}
