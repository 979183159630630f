/**
 * Steps 5 and 6 of an apply run: the plan's requests sent (the executor's
 * progress to the view), then what could not be recorded kept in a rescue
 * file, the outcome told, and the state committed. The outcome is told
 * before the commit, whatever saving the state says afterwards.
 */
import type { ApiClient } from '../api/index.js';
import type { ApplyResult } from '../apply/index.js';
import type { Plan } from '../plan/types.js';
import type { StateSession } from '../state/index.js';
import { bindTarget, type ApplyRun } from './apply-prepare.js';
import type { AppliedResult, RescueOutcome } from './view.js';

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

/**
 * Step 5, execute: the plan's requests through the connection's client (made
 * now when a request is needed and the refresh did not make it; none: the
 * offline client), every acknowledged one recorded in the session.
 */
async function execute(run: ApplyRun, plan: Plan, session: StateSession): Promise<ApplyResult> {
  const { connection, view, request } = run;
  const apply = await import('../apply/index.js');
  const { readingClient } = await import('./tenant-read.js');
  const needed = connection.isOpen || apply.countRequests(plan, { batchSize: request.batchSize }) > 0;
  connection.reportWaitsTo((ms, reason, kind) =>
    view.event({ kind: 'progress', event: { type: 'wait', waitMs: ms, message: reason, waitKind: kind } }),
  );
  const opened = needed ? await connection.open() : null;
  // Bound to the target once the tenant first answers (before that answer is recorded): an unreachable
  // target binds nothing, and the corrected run is not refused as another tenant's.
  const client = opened ? bindingOnAnswer(opened, () => bindTarget(run, session)) : null;
  try {
    return await apply.applyPlan(plan, {
      // Under the full profile a 409 on create is looked up on the tenant (id and live settings).
      client: !client ? apply.offlineClient : plan.api === 'full' ? await readingClient(client) : client,
      recorder: session,
      parallelism: request.parallelism,
      batchSize: request.batchSize,
      skipBlocked: request.skipBlocked,
      onEvent: (event) => view.event({ kind: 'progress', event }),
      signal: run.io.signal,
      ...(view.describeError ? { describeError: view.describeError } : {}),
    });
  } finally {
    view.event({ kind: 'apply-finished' });
    await connection.close();
  }
}

/** Keeps every operation the tenant acknowledged but the state could not record: told, then a rescue file. */
async function keepUnrecorded(
  run: ApplyRun,
  result: ApplyResult,
  session: StateSession,
): Promise<RescueOutcome | null> {
  if (result.unrecorded.length === 0) return null;
  const state = await import('../state/index.js');
  const entries = result.unrecorded.map((u) => state.toJournalEntry(session.doc.lineage, u.entry));
  run.view.event({ kind: 'unrecorded', entries });
  try {
    return { path: await state.writeRescueFile(run.store, entries) };
  } catch (error) {
    return { path: null, error };
  }
}

/**
 * Steps 5 and 6: execute, then the figures, the rescue file, the outcome
 * told (view: 'applied'), and the state committed.
 */
export async function executeApply(run: ApplyRun, plan: Plan, session: StateSession): Promise<AppliedResult> {
  const { view, io } = run;
  const total = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
  view.event({ kind: 'apply-started', total });
  const result = await execute(run, plan, session);
  const stats = run.connection.stats();
  view.event({
    kind: 'figures',
    figures: {
      done: result.done.length,
      failed: result.failed.length + result.unrecorded.length,
      notAttempted: result.notAttempted.length,
      requests: stats?.requests ?? 0,
      status429: stats?.status429 ?? 0,
      retried429: stats?.retried429 ?? 0,
    },
  });
  const rescue = await keepUnrecorded(run, result, session);
  const interrupted =
    io.signal?.aborted === true &&
    (result.notAttempted.length > 0 || result.failed.some((f) => f.code === 'API_ABORTED'));
  const applied: AppliedResult = {
    status: 'applied',
    plan,
    result,
    stats,
    rescue,
    interrupted,
    commitFailed: false,
  };
  view.event({ kind: 'applied', applied });
  try {
    await session.commit();
  } catch (error) {
    view.event({ kind: 'commit-failed', error });
    return { ...applied, commitFailed: true };
  }
  return applied;
}
