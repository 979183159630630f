import { applicableChanges } from '../plan/index.js';
import type { Plan } from '../plan/types.js';
import { buildTasks, entryAddress, outcomeOf, UnrecordedError, type Task } from './tasks.js';
import type { ApplyOptions, ApplyResult, ExecutorClient, Recorder } from './types.js';

/**
 * Errors after which no further request can succeed, so scheduling stops. The
 * client retries a 429 until the tenant has answered nothing but 429 for its
 * rate-limit timeout, so API_RATE_LIMITED means the tenant stopped letting
 * anything through.
 */
const FATAL_CODES = new Set([
  'API_UNAUTHORIZED',
  'API_FORBIDDEN',
  'API_ABORTED',
  'API_UNREACHABLE',
  'API_RATE_LIMITED',
]);
/**
 * Tasks per worker whose records may still be on their way to the disk while
 * the worker sends its next request (see applyPlan's worker). One was too few
 * against a fast tenant: every worker waited for each fsync, so the disk's
 * latency added to the run (issue 39). Sixteen lets the answers that arrive
 * during one fsync go out together in the next, and bounds what a failing
 * disk can leave acknowledged but unrecorded (parallelism × 16, each kept in
 * the run's rescue file).
 */
const RECORDS_AHEAD = 16;
/**
 * Of the fatal codes, those whose error with 0 attempts means the client sent nothing
 * for the task: stopped (a signal, a closed output) while it waited for its
 * turn, it is not attempted, in the text summary and --json alike.
 */
const NOT_SENT_CODES = new Set(['API_UNREACHABLE', 'API_RATE_LIMITED', 'API_ABORTED']);

/**
 * The client, noting each answer and its HTTP status (the api client reports
 * the status; a test double may not).
 */
function observing(client: ExecutorClient, note: (status: number | undefined) => void): ExecutorClient {
  return {
    call: async (op, params, body) => {
      const answer = await client.call(op, params, body);
      const status = (answer as { status?: unknown }).status;
      note(typeof status === 'number' ? status : undefined);
      return answer;
    },
    ...(client.lookup ? { lookup: client.lookup.bind(client) } : {}),
  };
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

function errorInfo(
  err: unknown,
  describe: ApplyOptions['describeError'],
): { message: string; code?: string; hint?: string; notSent?: boolean } {
  if (err instanceof Error) {
    const { code, attempts } = err as { code?: unknown; attempts?: unknown };
    const { message, hint } = describe?.(err) ?? (err as { message: string; hint?: unknown });
    // attempts 0: the client refused to send it (the tenant was already found
    // unreachable, or the rate-limit timeout had passed).
    const notSent = attempts === 0 && typeof code === 'string' && NOT_SENT_CODES.has(code);
    return {
      message,
      ...(typeof code === 'string' ? { code, notSent } : {}),
      ...(typeof hint === 'string' && message.endsWith(hint) ? { hint } : {}),
    };
  }
  return { message: String(err) };
}

/**
 * Applies a plan exactly: no re-planning. Every change's operations run as one
 * task; tasks run concurrently up to `parallelism` (the client paces them to
 * the tenant's rate limit). Each acknowledged operation is recorded through
 * `recorder` before it counts. Failures do not stop other tasks, except
 * authentication failures, a stop request, and any failure to record (or a
 * recorder that reports it can no longer record, e.g. a lost lock): then no
 * new request is sent, requests in flight finish and their outcomes are kept,
 * and the rest are reported as not attempted. Operations the tenant
 * acknowledged but the recorder refused come back in `unrecorded`.
 */
export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  // Refuses blocked changes (PlanError PLAN_BLOCKED) unless skipBlocked, before anything is sent.
  applicableChanges(plan, { skipBlocked: options.skipBlocked ?? false });
  const blocked = plan.changes
    .filter((c) => c.action === 'blocked')
    .map((c) => ({ address: c.address, reason: c.reason }));

  const result: ApplyResult = {
    done: [],
    failed: [],
    notAttempted: [],
    skipped: blocked,
    unrecorded: [],
    stoppedBy: null,
  };
  const tasks = buildTasks(plan, options);
  const parallelism = Math.max(1, options.parallelism ?? 10);
  const emit = options.onEvent ?? (() => {});
  let next = 0;
  const stop = (why: NonNullable<ApplyResult['stoppedBy']>): void => {
    result.stoppedBy ??= why;
  };
  /** True when no new task may start; notes why the first time. */
  const mustStop = (): boolean => {
    if (result.stoppedBy) return true;
    if (options.signal?.aborted) {
      stop({ message: 'interrupted', cause: 'signal' });
      return true;
    }
    const failure = options.recorder.failure?.() ?? null;
    if (failure) {
      stop({ ...errorInfo(failure, options.describeError), cause: 'record' });
      return true;
    }
    return false;
  };

  /**
   * Runs one task; `answered` is called when the task starts recording after
   * its last request (and any lookup) was answered: what is left is the write
   * to the state.
   */
  const runTask = async (task: Task, answered: () => void): Promise<void> => {
    const first = task.changes[0]!;
    emit({ type: 'start', address: first.address, action: first.action, count: task.changes.length });
    let status: number | undefined;
    let calls = 0;
    try {
      const client = observing(options.client, (s) => {
        if (s !== undefined) status = s;
        calls += 1;
      });
      const recorder: Recorder = {
        record: (entry) => {
          if (calls >= task.requests) answered();
          return options.recorder.record(entry);
        },
        failure: () => options.recorder.failure?.() ?? null,
        recorded: (address) => options.recorder.recorded?.(address) ?? null,
      };
      const done = await task.run(client, recorder);
      const outcome = outcomeOf(done);
      const adoption = typeof done === 'string' ? undefined : done.adoption;
      for (const change of task.changes) {
        result.done.push({
          address: change.address,
          action: change.action,
          outcome,
          ...(adoption ? { adoption } : {}),
        });
      }
      emit({
        type: 'done',
        address: first.address,
        action: first.action,
        outcome,
        count: task.changes.length,
        ...(status !== undefined ? { status } : {}),
      });
    } catch (err) {
      if (err instanceof UnrecordedError) {
        unrecordedTask(task, err);
        return;
      }
      const { notSent, ...info } = errorInfo(err, options.describeError);
      if (info.code && FATAL_CODES.has(info.code)) stop({ ...info, cause: 'api' });
      if (notSent) {
        for (const change of task.changes)
          result.notAttempted.push({ address: change.address, action: change.action });
        return;
      }
      for (const change of task.changes) {
        result.failed.push({ address: change.address, action: change.action, ...info });
      }
      emit({
        type: 'failed',
        address: first.address,
        action: first.action,
        message: info.message,
        ...(info.hint ? { hint: info.hint } : {}),
        count: task.changes.length,
        ...(statusOf(err) !== undefined ? { status: statusOf(err) } : {}),
        ...(info.code !== undefined ? { code: info.code } : {}),
      });
    }
  };

  /** A record failure: keep what was acknowledged, stop scheduling. */
  const unrecordedTask = (task: Task, err: UnrecordedError): void => {
    const info = errorInfo(err.cause, options.describeError);
    stop({ ...info, cause: 'record' });
    const lost = new Map(err.entries.map((e) => [entryAddress(e.entry), e]));
    const first = task.changes[0]!;
    for (const change of task.changes) {
      const item = lost.get(change.address);
      if (item) {
        result.unrecorded.push({
          address: change.address,
          action: change.action,
          outcome: item.outcome,
          entry: item.entry,
          message: info.message,
        });
      } else if (err.entries.length > 0) {
        // A batch whose other entries were recorded: this one was acknowledged and recorded.
        result.done.push({
          address: change.address,
          action: change.action,
          outcome: err.entries[0]!.outcome,
        });
      } else {
        result.failed.push({ address: change.address, action: change.action, ...info });
      }
    }
    emit({
      type: 'failed',
      address: first.address,
      action: first.action,
      message: `${err.entries.length > 0 ? 'acknowledged by the tenant but not recorded' : 'not recorded'}: ${info.message}`,
      count: task.changes.length,
    });
  };

  /**
   * A worker sends its next requests while the records of its answered tasks
   * are being made durable (the journal's fsync), so the disk's latency
   * overlaps the network's instead of adding to it, and the answers that
   * arrive during one fsync share the next. At most RECORDS_AHEAD tasks per
   * worker are in that state: before another starts, the oldest must have
   * finished recording. Nothing counts as done before it is recorded, and a
   * record failure still stops scheduling; the requests in flight then
   * finish like any other.
   */
  const worker = async (): Promise<void> => {
    const recording: Promise<void>[] = [];
    while (next < tasks.length && !mustStop()) {
      const task = tasks[next++]!;
      let answered!: () => void;
      const whenAnswered = new Promise<void>((resolve) => (answered = resolve));
      const running = runTask(task, answered);
      await Promise.race([running, whenAnswered]);
      recording.push(running);
      while (recording.length > RECORDS_AHEAD) await recording.shift();
    }
    await Promise.all(recording);
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, tasks.length) }, worker));

  for (let i = next; i < tasks.length; i++) {
    for (const change of tasks[i]!.changes)
      result.notAttempted.push({ address: change.address, action: change.action });
  }
  const order = new Map(plan.changes.map((c, i) => [c.address, i]));
  const byPlan = (a: { address: string }, b: { address: string }) =>
    (order.get(a.address) ?? 0) - (order.get(b.address) ?? 0);
  result.done.sort(byPlan);
  result.failed.sort(byPlan);
  result.notAttempted.sort(byPlan);
  result.unrecorded.sort(byPlan);
  return result;
}

/** Requests an apply of this plan would send at most, before retries. */
export function countRequests(plan: Plan, options: Pick<ApplyOptions, 'batchSize'> = {}): number {
  return buildTasks(plan, options).reduce((sum, t) => sum + t.requests, 0);
}

/** A client for plans that need no request (forget only): any call is a bug. */
export const offlineClient: ExecutorClient = {
  call: () => Promise.reject(new Error('no API connection for this apply')),
};
