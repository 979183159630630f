import { readFileSync, statSync } from 'node:fs';
import type { Plan } from '../../plan/types.js';
import type { StateDocument, StateStore } from '../../state/types.js';
import type { ApplyResult } from '../../apply/index.js';
import type { ApiClient } from '../../api/index.js';
import type { StateSession } from '../../state/index.js';
import { ApiConnection } from '../../run/connection.js';
import type { ApplyRequest, ConfigInput } from '../../run/requests.js';
import { openInputStore, targetGiven } from '../../run/state-store.js';
import { CliError, writeChunks, type CommandIO, type OutputStream } from '../io.js';
import { absolute, runIO, withLockedState } from '../context.js';
import { createProgress } from '../progress.js';
import { createJsonProgress } from '../apply-json.js';
import { applyExitCode, keepUnrecorded, reportApply } from '../apply-report.js';
import { loadDesiredOrReport } from '../inputs.js';
import { checkJsonFlags, parseApplyRequest, type ApplyRunFlags } from '../requests.js';
import { describeError, flagOf, messageOf } from '../run-words.js';

export type { ApplyRunFlags };
import type { DestroyFlags } from '../definitions.js';
import type { DesiredResource, KnownNames } from '../../resources/index.js';
import { describeState, noStateWarning, whereLines } from '../where.js';

import { bindTenant, checkTenant } from '../tenant-binding.js';

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

/**
 * The API target the request and the environment name, checked even when the
 * plan turns out to need no request: a mistyped target is an error either
 * way. Null when nothing names a target (a plan without requests needs none).
 */
async function resolveGivenTarget(request: ApplyRequest, io: CommandIO) {
  const { target: t, audience } = request.connection;
  if (!targetGiven(t, io.env)) return null;
  const { resolveTarget } = await import('../../api/target.js');
  return resolveTarget({ domain: t.domain, baseUrl: t.baseUrl, audience }, io.env);
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
type JsonProgress = ReturnType<typeof createJsonProgress>;

/** What an apply needs once its inputs are read, before the lock. */
interface ApplyRun {
  request: ApplyRequest;
  io: CommandIO;
  input: ConfigInput;
  store: StateStore;
  /** The plan against the locked state's document. */
  planFor(doc: StateDocument): Plan;
  /** What the config asks for (none for a saved plan or a destroy): --refresh compares it too. */
  desired: readonly DesiredResource[];
  /** The guardrails' review of the plan made under the lock: null when an error stops apply before the question. */
  review(plan: Plan): Plan | null;
  parallelism: number;
  batchSize: number;
  /** The one API client, made when first needed. */
  connection: ApiConnection;
}

/** A saved plan's store and planFor, after every check it needs (saved-plan.ts). */
async function preparePlanFile(request: ApplyRequest, file: string, input: ConfigInput, io: CommandIO) {
  // Checked in full (seal, paths, flags, state location, target, changes) before any state directory or lock.
  // A refusal, then or under the lock, exits EXIT_PLAN_REFUSED: nothing was sent, planning again is the way on.
  const { openSavedPlan, refusedPlanExit, refusedPlanExitSync } = await import('../saved-plan.js');
  const opened = await refusedPlanExit(() => openSavedPlan(file, { ...request, input }, io));
  const planFor = (doc: StateDocument) => refusedPlanExitSync(() => opened.planFor(doc));
  const guardrails = await import('../guardrails.js');
  // The plan was reviewed when it was made; --strict refuses it when that review found warnings.
  const review = (plan: Plan) => guardrails.strictSavedPlan(plan, request.strict, io);
  return { ...opened, planFor, desired: [], review };
}

/** The config's store and planFor; null when the config has problems (reported). */
async function prepareConfig(
  request: ApplyRequest,
  input: ConfigInput,
  vars: Record<string, string> | null,
  io: CommandIO,
) {
  const desired =
    vars === null ? [] : await loadDesiredOrReport(input.paths, { vars, varFiles: input.varFiles }, io);
  if (!desired) return null;
  // The guardrails' config rules: an error stops here, before the state is locked or anything sent.
  const guardrails = await import('../guardrails.js');
  const settings = guardrails.runSettings(input, request.strict);
  const configWarnings = guardrails.reviewConfig(desired, settings, io);
  if (!configWarnings) return null;
  const review = (plan: Plan) => guardrails.reviewPlan(plan, configWarnings, settings, io);
  const { planChanges } = await import('../../plan/index.js');
  const store = await openInputStore(request.state, request.connection.named, input, runIO(io));
  const { targets, replace, destroy } = request.selection;
  const options = { targets: [...targets], replace: [...replace], destroy, api: request.api ?? 'spec' };
  const planFor = (doc: StateDocument) => planChanges(desired, doc, options);
  return { input, store, planFor, desired, review };
}

/**
 * Step 1, prepare: the saved plan or the config, the state store and the
 * target (checked even when the plan turns out to need no request: a
 * mistyped target is an error either way). A number is the exit code of a
 * config with problems.
 */
async function prepare(request: ApplyRequest, io: CommandIO): Promise<ApplyRun | number> {
  const { source } = request;
  const inputs =
    source.kind === 'plan-file'
      ? await preparePlanFile(request, source.file, source.input, io)
      : await prepareConfig(request, source.input, source.vars, io);
  if (!inputs) return 1;
  const { input, store, planFor, desired, review } = inputs;
  try {
    const live = await import('../tenant-read.js');
    if (request.refresh) live.requireFull(request.api ?? 'spec', 'apply --refresh');
    const given = await resolveGivenTarget(request, io);
    const { parallelism } = request;
    const connection = new ApiConnection({
      request: request.connection,
      input,
      given,
      io: runIO(io),
      parallelism,
    });
    return {
      request,
      io,
      input,
      store,
      planFor,
      desired,
      review,
      parallelism,
      batchSize: request.batchSize,
      connection,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * Step 3, refresh (--refresh): the tenant read under the lock, through the
 * client that then sends the apply's requests, and the state brought up to
 * date with it (journaled); the drift found, for the plan. Null when a
 * reference the config makes is not on the tenant (said): the run stops
 * before anything is recorded or sent.
 */
async function refresh(
  run: ApplyRun,
  session: StateSession,
  info: OutputStream,
): Promise<{ drift: Plan['drift']; names: KnownNames | null } | null> {
  const { keepNames, storedNames } = await import('../known-names.js');
  if (!run.request.refresh) return { drift: undefined, names: await storedNames(run.store, run.io) };
  const live = await import('../tenant-read.js');
  const { refreshState } = await import('../../plan/index.js');
  const client = await run.connection.open();
  const params = live.listParams(run.desired, session.doc);
  const read = await live.readLive(client, params, run.parallelism, run.desired);
  // The tenant answered: now the state is its.
  await bindTarget(run, session);
  if (!(await live.referencesHold(run.desired, read.references, run.io, run.request.strict))) return null;
  const refreshed = refreshState(session.doc, read, run.desired);
  for (const entry of refreshed.entries) await session.record(entry);
  info.write(`${live.readSummary(read)}\n`);
  return { drift: refreshed.drift, names: await keepNames(run.store, read.references, run.io) };
}

/**
 * The plan against the locked state, reviewed by the guardrails, shown (as
 * text, or JSON lines with --json), and the changes apply may make; null
 * when the review stops apply (its errors said).
 */
async function showPlan(
  run: ApplyRun,
  session: StateSession,
  refreshed: { drift: Plan['drift']; names: KnownNames | null },
  info: OutputStream,
) {
  const { io, store } = run;
  const { output, skipBlocked } = run.request;
  const planModule = await import('../../plan/index.js');
  const { drift } = refreshed;
  const made = drift ? { ...run.planFor(session.doc), drift } : run.planFor(session.doc);
  // Names are display only: a saved plan keeps those it was made with.
  const plan = run.review(await (await import('../known-names.js')).withNames(made, refreshed.names));
  if (!plan) return null;
  if (session.doc.serial === 0 && plan.summary.create > 0)
    info.write(noStateWarning(describeState(store, io)));
  io.report?.({ state: store.description, changes: plan.changes.filter((c) => c.action !== 'no-op').length });
  const json = output.json ? createJsonProgress(io.stdout) : null;
  if (!json)
    writeChunks(
      io.stdout,
      planModule.renderTextChunks(plan, {
        color: planModule.shouldUseColor(io.stdout, io.env),
        verbose: output.verbose,
        names: flagOf,
      }),
    );
  const hasChanges = planModule.hasChanges(plan);
  // Refuses blocked changes unless --skip-blocked: before the question, and before any request.
  const applicable = hasChanges ? planModule.applicableChanges(plan, { skipBlocked }) : [];
  json?.plan(plan, applicable);
  return { plan, applicable, json, hasChanges };
}

/**
 * Step 4, confirm: the target and credentials resolved when a request is
 * needed (before the question), then --auto-approve or the question. False
 * when the answer is no.
 */
async function confirm(run: ApplyRun, plan: Plan): Promise<boolean> {
  const { io, connection } = run;
  const { countRequests } = await import('../../apply/index.js');
  if (countRequests(plan, { batchSize: run.batchSize }) > 0) {
    const { target } = await connection.endpoint();
    io.report?.({ target: target.baseUrl });
  }
  if (run.request.autoApprove) return true;
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

/**
 * Step 5, execute: the plan's requests through the connection's client (made
 * now when a request is needed and the refresh did not make it; none: the
 * offline client), every acknowledged one recorded in the session.
 */
async function execute(
  run: ApplyRun,
  plan: Plan,
  session: StateSession,
  progress: Progress,
): Promise<ApplyResult> {
  const { connection } = run;
  const apply = await import('../../apply/index.js');
  const live = await import('../tenant-read.js');
  const needed = connection.isOpen || apply.countRequests(plan, { batchSize: run.batchSize }) > 0;
  connection.reportWaitsTo((ms, reason, kind) =>
    progress.onEvent({ type: 'wait', waitMs: ms, message: reason, waitKind: kind }),
  );
  const opened = needed ? await connection.open() : null;
  // Bound to the target once the tenant first answers (before that answer is recorded): an unreachable
  // target binds nothing, and the corrected run is not refused as another tenant's.
  const client = opened ? bindingOnAnswer(opened, () => bindTarget(run, session)) : null;
  try {
    return await apply.applyPlan(plan, {
      // Under the full profile a 409 on create is looked up on the tenant (id and live settings).
      client: !client ? apply.offlineClient : plan.api === 'full' ? await live.readingClient(client) : client,
      recorder: session,
      parallelism: run.parallelism,
      batchSize: run.batchSize,
      skipBlocked: run.request.skipBlocked,
      onEvent: progress.onEvent,
      signal: run.io.signal,
      describeError,
    });
  } finally {
    progress.finish();
    await connection.close();
  }
}

/**
 * Step 6, report: the figures, what was done (text or the JSON summary), a
 * rescue file for what could not be recorded, then the state committed. The
 * summary comes first, whatever saving the state says afterwards.
 */
async function report(
  run: ApplyRun,
  plan: Plan,
  result: ApplyResult,
  session: StateSession,
  progress: Progress,
  json: JsonProgress | null,
): Promise<number> {
  const { io } = run;
  const stats = run.connection.stats();
  io.report?.({
    done: result.done.length,
    failed: result.failed.length + result.unrecorded.length,
    notAttempted: result.notAttempted.length,
    requests: stats?.requests ?? 0,
    status429: stats?.status429 ?? 0,
    retried429: stats?.retried429 ?? 0,
  });
  const rescue = await keepUnrecorded(result, session, run.store, io);
  const interrupted =
    io.signal?.aborted === true &&
    (result.notAttempted.length > 0 || result.failed.some((f) => f.code === 'API_ABORTED'));
  let code: number;
  if (json) {
    json.summary(result, stats);
    code = applyExitCode(result, interrupted, io);
  } else {
    const figures = { status429: stats?.status429 ?? 0, retried429: stats?.retried429 ?? 0 };
    code = reportApply(
      result,
      { rescue, interrupted, failuresListed: progress.failuresListed, ...figures },
      io,
    );
    if (plan.destroy) destroyNote(result, io);
  }
  return commitReported(session, code, io);
}

/** Commits the state; a failure is said (the journal keeps every operation) and fails the run. */
async function commitReported(session: StateSession, code: number, io: CommandIO): Promise<number> {
  try {
    await session.commit();
    return code;
  } catch (err) {
    io.stderr.write(
      `Error: ${messageOf(err)}\n` +
        'Every operation recorded so far is in the journal of the state; the next plan or apply replays it.\n',
    );
    return code === 0 ? 1 : code;
  }
}

/**
 * An apply to a confirmed target binds the state to that tenant (once): when
 * it has nothing to send, at once; else when the tenant first answers, before
 * anything it answered is recorded, so that a state with its ids names it
 * and a target that never answered (refused, unreachable) binds nothing.
 */
async function bindTarget(run: ApplyRun, session: StateSession): Promise<void> {
  const target = run.connection.given;
  if (target) await bindTenant(session, target.baseUrl);
}

/**
 * `client` whose calls bind the state (`bind`, once) as soon as one is
 * answered: a success, or an HTTP error (status > 0); a call that reached no
 * tenant (refused connection, timeout, abort) binds nothing.
 */
function bindingOnAnswer(client: ApiClient, bind: () => Promise<void>): ApiClient {
  let bound: Promise<void> | null = null;
  const once = () => (bound ??= bind());
  const call: ApiClient['call'] = async (...args) => {
    let result;
    try {
      result = await client.call(...args);
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (typeof status === 'number' && status > 0) await once();
      throw err;
    }
    await once();
    return result;
  };
  return Object.assign(Object.create(client) as ApiClient, { call });
}

/** Under the lock (step 2): refresh, plan, confirm, execute, report. */
async function applyLocked(run: ApplyRun, session: StateSession): Promise<number> {
  const { io, request } = run;
  const { refresh: refreshing } = request;
  // Said once the lock is held: a run refused by the lock prints only the holder. With --json,
  // stdout carries JSON lines only: the header goes to stderr.
  const info = request.output.json ? io.stderr : io.stdout;
  const target = run.connection.given?.baseUrl ?? null;
  const state = describeState(run.store, io);
  info.write(whereLines(state, target ?? 'not set (needed only if a request must be sent)'));
  checkTenant(session.doc, target, request.connection.reassignTenant, state, 'apply');
  const refreshed = await refresh(run, session, info);
  if (!refreshed) return 1;
  const shown = await showPlan(run, session, refreshed, info);
  if (!shown) {
    if (refreshing) await session.commit();
    return 1;
  }
  const { plan, applicable, json, hasChanges } = shown;
  if (applicable.length === 0) {
    await bindTarget(run, session);
    if (refreshing) await session.commit();
    if (json) json.summary(nothingApplied(plan), run.connection.stats());
    else if (hasChanges) io.stdout.write('\nOnly blocked changes remain; nothing to apply.\n');
    return 0;
  }
  if (!(await confirm(run, plan))) {
    if (refreshing) await session.commit();
    io.stdout.write('Apply cancelled; nothing was sent.\n');
    return 1;
  }
  const total = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
  const progress = json ?? createProgress(io.stdout, total, { verbose: request.output.verbose });
  if (!json) io.stdout.write('\n');
  const result = await execute(run, plan, session, progress);
  return report(run, plan, result, session, progress, json);
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

/** tenantform apply [PATH | PLANFILE]: one environment (main.ts sends several to fleet.ts). */
export async function applyAction(
  pathArgs: string[],
  flags: ApplyRunFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseApplyRequest(pathArgs, flags, io, looksLikePlanFile);
  const run = await prepare(request, io);
  if (typeof run === 'number') return run;
  try {
    const locking = { lockTimeoutMs: request.lockTimeoutMs, io };
    return await withLockedState(run.store, 'apply', locking, async (session) => {
      try {
        return await applyLocked(run, session);
      } finally {
        await run.connection.close();
      }
    });
  } finally {
    await run.store.close();
  }
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
