/**
 * An apply request run (apply, destroy; a config or a saved plan): prepared
 * (apply-prepare.ts), then under the lock the refresh when asked, the plan
 * reviewed and shown, the confirmation, the requests, the outcome recorded
 * and the state committed. What it tells on the way goes to the view (the
 * executor's progress among it); what it ends with is the result.
 */
import type { ApiClient } from '../api/index.js';
import type { ApplyResult } from '../apply/index.js';
import type { Plan } from '../plan/types.js';
import type { KnownNames } from '../resources/index.js';
import type { StateSession } from '../state/index.js';
import { bindTarget, prepareApply, type ApplyRun } from './apply-prepare.js';
import { keepNames, storedNames, withNames } from './known-names.js';
import { withLockedState } from './locked-state.js';
import type { ApplyRequest, RunIO } from './requests.js';
import { checkTenant, describeStore } from './tenant-binding.js';
import { listParams, readLive, referencesHold } from './tenant-read.js';
import type { AppliedResult, RunView } from './view.js';
import { executeApply } from './apply-execute.js';

/** How an apply ended. Stopped: told on the way (config, guardrails, references). */
export type ApplyRunResult =
  | { status: 'stopped' }
  /** Nothing to send (no change, or only blocked ones skipped). */
  | {
      status: 'nothing-to-apply';
      plan: Plan;
      hasChanges: boolean;
      stats: ReturnType<ApiClient['stats']> | undefined;
    }
  /** The answer to the question was no: nothing was sent. */
  | { status: 'cancelled' }
  | AppliedResult;

type Refreshed = { drift: Plan['drift']; names: KnownNames | null };

/**
 * Step 3, refresh (when asked): the tenant read under the lock, through the
 * client that then sends the apply's requests, and the state brought up to
 * date with it (journaled); the drift found, for the plan. Null when a
 * reference the config makes is not on the tenant (told).
 */
async function refresh(run: ApplyRun, session: StateSession): Promise<Refreshed | null> {
  const { io, view, desired, request } = run;
  if (!request.refresh) return { drift: undefined, names: await storedNames(run.store, io) };
  const { refreshState } = await import('../plan/index.js');
  const client = await run.connection.open();
  const read = await readLive(client, listParams(desired, session.doc), request.parallelism, desired);
  // The tenant answered: now the state is its.
  await bindTarget(run, session);
  if (!(await referencesHold(desired, read.references, request.strict, view))) return null;
  const refreshed = refreshState(session.doc, read, desired);
  for (const entry of refreshed.entries) await session.record(entry);
  view.event({ kind: 'tenant-read', read });
  return { drift: refreshed.drift, names: await keepNames(run.store, read.references, io) };
}

/**
 * The plan against the locked state, reviewed by the guardrails and shown,
 * and the changes apply may make; null when the review stops apply (told).
 * Blocked changes are refused here unless skipped: before the question, and
 * before any request (the plan shown first).
 */
async function showPlan(run: ApplyRun, session: StateSession, refreshed: Refreshed) {
  const { store, view } = run;
  const planModule = await import('../plan/index.js');
  const { drift } = refreshed;
  const made = drift ? { ...run.planFor(session.doc), drift } : run.planFor(session.doc);
  // Names are display only: a saved plan keeps those it was made with.
  const plan = run.review(await withNames(made, refreshed.names));
  if (!plan) return null;
  if (session.doc.serial === 0 && plan.summary.create > 0)
    view.event({ kind: 'no-state', state: describeStore(store, run.io.cwd) });
  const changes = plan.changes.filter((c) => c.action !== 'no-op').length;
  view.event({ kind: 'figures', figures: { state: store.description, changes } });
  const hasChanges = planModule.hasChanges(plan);
  let applicable: Plan['changes'] | null = null;
  let refused: unknown = null;
  try {
    applicable = hasChanges
      ? planModule.applicableChanges(plan, { skipBlocked: run.request.skipBlocked })
      : [];
  } catch (err) {
    refused = err;
  }
  await view.showPlan({ plan, desired: run.desired, applicable });
  if (applicable === null) throw refused;
  return { plan, applicable, hasChanges };
}

/**
 * Step 4, confirm: the target and credentials resolved when a request is
 * needed (before the question), then the request's approval or the question.
 */
async function confirm(run: ApplyRun, plan: Plan): Promise<boolean> {
  const { countRequests } = await import('../apply/index.js');
  if (countRequests(plan, { batchSize: run.request.batchSize }) > 0) {
    const { target } = await run.connection.endpoint();
    run.view.event({ kind: 'figures', figures: { target: target.baseUrl } });
  }
  return run.request.autoApprove || run.view.confirm(plan);
}

/** Under the lock (step 2): refresh, plan, confirm, execute, report. */
async function applyLocked(run: ApplyRun, session: StateSession): Promise<ApplyRunResult> {
  const { request, view } = run;
  const refreshing = request.refresh;
  // Said once the lock is held: a run refused by the lock says only the holder.
  const target = run.connection.given?.baseUrl ?? null;
  const state = describeStore(run.store, run.io.cwd);
  view.event({
    kind: 'where',
    state,
    target: target === null ? { kind: 'unset' } : { kind: 'set', baseUrl: target },
  });
  checkTenant(session.doc, target, request.connection.reassignTenant, state, 'apply');
  const refreshed = await refresh(run, session);
  if (!refreshed) return { status: 'stopped' };
  const shown = await showPlan(run, session, refreshed);
  if (!shown) {
    if (refreshing) await session.commit();
    return { status: 'stopped' };
  }
  const { plan, applicable, hasChanges } = shown;
  if (applicable.length === 0) {
    await bindTarget(run, session);
    if (refreshing) await session.commit();
    return { status: 'nothing-to-apply', plan, hasChanges, stats: run.connection.stats() };
  }
  if (!(await confirm(run, plan))) {
    if (refreshing) await session.commit();
    return { status: 'cancelled' };
  }
  return executeApply(run, plan, session);
}

/** True when an apply left something undone: a failure, an operation not attempted or not recorded, or a stop. */
export function isIncomplete(result: ApplyResult, interrupted: boolean): boolean {
  return (
    result.failed.length > 0 || result.notAttempted.length > 0 || result.unrecorded.length > 0 || interrupted
  );
}

/** Runs an apply request (apply or destroy): see the module's comment. */
export async function runApply(request: ApplyRequest, io: RunIO, view: RunView): Promise<ApplyRunResult> {
  const run = await prepareApply(request, io, view);
  if (!run) return { status: 'stopped' };
  try {
    return await withLockedState(
      run.store,
      'apply',
      { lockTimeoutMs: request.lockTimeoutMs },
      io,
      async (session) => {
        try {
          return await applyLocked(run, session);
        } finally {
          await run.connection.close();
        }
      },
    );
  } finally {
    await run.store.close();
  }
}

export type { ApplyResult };
