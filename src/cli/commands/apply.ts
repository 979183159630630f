import { readFileSync, statSync } from 'node:fs';
import type { Plan } from '../../plan/types.js';
import type { ApplyResult } from '../../apply/index.js';
import { rescueLines, type JournalEntry } from '../../state/index.js';
import {
  runApply,
  type ApplyRunResult,
  type PlanReview,
  type RunEvent,
  type RunView,
} from '../../run/index.js';
import type { ApplyRequest } from '../../run/requests.js';
import { CliError, writeChunks, type CommandIO } from '../io.js';
import { absolute, runIO } from '../context.js';
import { createProgress } from '../progress.js';
import { createJsonProgress } from '../apply-json.js';
import { applyExitCode, reportApply } from '../apply-report.js';
import { checkJsonFlags, parseApplyRequest, type ApplyRunFlags } from '../requests.js';
import { describeError, flagOf, messageOf } from '../run-words.js';
import type { DestroyFlags } from '../definitions.js';
import { noStateWarning, whereLines } from '../where.js';
import { renderCommonEvent, targetLine, unexpectedEvent } from '../run-view.js';
import { readSummary } from '../tenant-read.js';

export type { ApplyRunFlags };

/**
 * A saved plan is a JSON object with format_version and changes. A config
 * written in JSON style (YAML allows it) is not one, and neither is a
 * directory or a .yaml/.yml file. A .tfplan file, and text that starts with {
 * but is not JSON, count as a damaged plan, so that the plan reader reports it.
 */
export function looksLikePlanFile(path: string): boolean {
  try {
    if (!statSync(path).isFile() || /\.ya?ml$/i.test(path)) return false;
    if (/\.tfplan$/i.test(path)) return true; // named as a plan: the plan reader says what else it is
    const text = readFileSync(path, 'utf8');
    if (!text.trimStart().startsWith('{')) return false;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return true; // a damaged plan file: let the plan reader say what is wrong
    }
    return typeof data === 'object' && data !== null && 'format_version' in data && 'changes' in data;
  } catch {
    return false;
  }
}

/** The result of an apply that had nothing to send: only blocked changes, skipped. */
function nothingApplied(plan: Plan): ApplyResult {
  const skipped = plan.changes
    .filter((c) => c.action === 'blocked')
    .map((c) => ({ address: c.address, reason: c.reason }));
  return { done: [], failed: [], notAttempted: [], unrecorded: [], stoppedBy: null, skipped };
}

/** After a destroy: says plainly which resources were only forgotten and stay on the tenant. */
function destroyNote(result: ApplyResult, io: CommandIO): void {
  const forgotten = result.done.filter((d) => d.outcome === 'forgotten').length;
  if (forgotten === 0) return;
  io.stdout.write(
    `${forgotten} resource${forgotten === 1 ? ' was' : 's were'} forgotten, not deleted (the plan gave the reason for each): ` +
      `${forgotten === 1 ? 'it stays' : 'they stay'} on the tenant. Remove ${forgotten === 1 ? 'it' : 'them'} by hand if needed.\n`,
  );
}

/** Apply's progress output: a line per operation or a live line (progress.ts), or JSON lines (apply-json.ts). */
type Progress = Pick<ReturnType<typeof createProgress>, 'failuresListed' | 'onEvent' | 'finish'>;

/** The machine-readable stderr lines of operations acknowledged but not recorded (CI logs keep them). */
function rescueText(entries: readonly JournalEntry[]): string {
  return rescueLines(entries).join('\n') + '\n';
}

/** The question before the changes are made; refused when there is no terminal to ask on. */
async function askToApply(plan: Plan, io: CommandIO): Promise<boolean> {
  if (!io.confirm) {
    throw new CliError(
      'refusing to apply without confirmation: not on a terminal. Review the plan, then re-run with --auto-approve.',
    );
  }
  return io.confirm(
    plan.destroy
      ? '\nDo you really want to destroy everything listed above? Deleted policies are gone; forgotten resources stay on the tenant.'
      : '\nDo you want to make these changes?',
  );
}

/** The plan shown for review: as text, or with --json the plan line (none when it cannot be applied as it is). */
async function writeReview(
  review: PlanReview,
  json: ReturnType<typeof createJsonProgress> | null,
  request: ApplyRequest,
  io: CommandIO,
) {
  if (json) {
    if (review.applicable) json.plan(review.plan, review.applicable);
    return;
  }
  const planModule = await import('../../plan/index.js');
  const color = planModule.shouldUseColor(io.stdout, io.env);
  writeChunks(
    io.stdout,
    planModule.renderTextChunks(review.plan, { color, verbose: request.output.verbose, names: flagOf }),
  );
}

/** The outcome of the requests: the JSON summary, or the text report (and after a destroy, what was only forgotten). */
function writeApplied(
  event: Extract<RunEvent, { kind: 'applied' }>,
  progress: Progress | null,
  json: ReturnType<typeof createJsonProgress> | null,
  io: CommandIO,
): void {
  const { result, stats, rescue, interrupted, plan } = event.applied;
  if (json) {
    json.summary(result, stats);
    return;
  }
  const note =
    rescue === null
      ? null
      : rescue.path !== null
        ? { path: rescue.path }
        : { path: null, problem: messageOf(rescue.error) };
  const figures = { status429: stats?.status429 ?? 0, retried429: stats?.retried429 ?? 0 };
  reportApply(
    result,
    { rescue: note, interrupted, failuresListed: progress?.failuresListed ?? true, ...figures },
    io,
  );
  if (plan.destroy) destroyNote(result, io);
}

/**
 * What apply shows: what it acts on, the plan, the question, the progress
 * and the outcome; with --json, stdout carries JSON lines only (the rest
 * goes to stderr). One environment's of several as well (fleet.ts).
 */
export function applyView(request: ApplyRequest, io: CommandIO): RunView {
  const info = request.output.json ? io.stderr : io.stdout;
  const json = request.output.json ? createJsonProgress(io.stdout) : null;
  let progress: Progress | null = null;
  return {
    event(event: RunEvent) {
      if (renderCommonEvent(event, io)) return;
      switch (event.kind) {
        case 'where':
          return void info.write(
            whereLines(
              event.state,
              targetLine(event.target, 'not set (needed only if a request must be sent)'),
            ),
          );
        case 'tenant-read':
          return void info.write(`${readSummary(event.read)}\n`);
        case 'no-state':
          return void info.write(noStateWarning(event.state));
        case 'figures':
          return; // for the table of a multi-environment run (src/run/fleet.ts)
        case 'apply-started':
          progress = json ?? createProgress(io.stdout, event.total, { verbose: request.output.verbose });
          if (!json) io.stdout.write('\n');
          return;
        case 'progress':
          return progress?.onEvent(event.event);
        case 'apply-finished':
          return progress?.finish();
        case 'unrecorded':
          return void io.stderr.write(rescueText(event.entries));
        case 'applied':
          return writeApplied(event, progress, json, io);
        case 'commit-failed':
          return void io.stderr.write(
            `Error: ${messageOf(event.error)}\n` +
              'Every operation recorded so far is in the journal of the state; the next plan or apply replays it.\n',
          );
        default:
          return unexpectedEvent(event);
      }
    },
    showPlan: (review) => writeReview(review, json, request, io),
    confirm: (plan) => askToApply(plan, io),
    describeError,
  };
}

/** The exit code of an apply run, and what it says last (nothing to apply, cancelled). */
export function finish(run: ApplyRunResult, request: ApplyRequest, io: CommandIO): number {
  switch (run.status) {
    case 'stopped':
      return 1;
    case 'nothing-to-apply':
      if (request.output.json) createJsonProgress(io.stdout).summary(nothingApplied(run.plan), run.stats);
      else if (run.hasChanges) io.stdout.write('\nOnly blocked changes remain; nothing to apply.\n');
      return 0;
    case 'cancelled':
      io.stdout.write('Apply cancelled; nothing was sent.\n');
      return 1;
    case 'applied': {
      const code = applyExitCode(run.result, run.interrupted, io);
      return run.commitFailed && code === 0 ? 1 : code;
    }
  }
}

/**
 * tenantform apply [PATH | PLANFILE]: one environment (main.ts sends several
 * to fleet.ts). The flags as a request, run by runApply (src/run/apply.ts).
 */
export async function applyAction(
  pathArgs: string[],
  flags: ApplyRunFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseApplyRequest(pathArgs, flags, io, looksLikePlanFile);
  return finish(await runApply(request, runIO(io), applyView(request, io)), request, io);
}

/**
 * Whether an apply that asked for several environments (`asked`) runs them
 * (main.ts then hands it to fleet.ts): not with --json, which is refused
 * first, nor for a saved plan, which names its own state (its checks refuse
 * several --env).
 */
export function runsSeveral(paths: string[], flags: ApplyRunFlags, io: CommandIO, asked: boolean): boolean {
  checkJsonFlags(flags, asked);
  return asked && !paths.some((p) => looksLikePlanFile(absolute(p, io)));
}

/** tenantform destroy [PATH]: plan the removal of everything the state records, then apply it. */
export async function destroyAction(
  pathArgs: string[],
  flags: DestroyFlags,
  cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return applyAction(pathArgs, { ...flags, destroy: true }, cmd, io);
}
