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
 * during one fsync, and the journal's commit interval after it, go out
 * together in the next, and bounds what a failing disk can leave acknowledged
 * but unrecorded (parallelism × 16, each kept in the run's rescue file).
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
    // The caller's words for it when it has them (settings named as it names them).
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

/** A task answered and being recorded by a worker: `settled` once its record is done (or failed). */
type Recording = { running: Promise<void>; settled: boolean };

/** One run of applyPlan: its tasks, where scheduling is, and the result being gathered. */
class ApplyRun {
  readonly result: ApplyResult;
  private readonly tasks: Task[];
  private readonly emit: NonNullable<ApplyOptions['onEvent']>;
  private next = 0;

  constructor(
    private readonly plan: Plan,
    private readonly options: ApplyOptions,
  ) {
    const blocked = plan.changes
      .filter((c) => c.action === 'blocked')
      .map((c) => ({ address: c.address, reason: c.reason }));
    this.result = {
      done: [],
      failed: [],
      notAttempted: [],
      skipped: blocked,
      unrecorded: [],
      stoppedBy: null,
    };
    this.tasks = buildTasks(plan, options);
    this.emit = options.onEvent ?? (() => {});
  }

  /** Runs every task up to `parallelism` at once, then lists the rest as not attempted, in plan order. */
  async execute(): Promise<ApplyResult> {
    const parallelism = Math.max(1, this.options.parallelism ?? 10);
    const workers = Array.from({ length: Math.min(parallelism, this.tasks.length) }, () => this.worker());
    await Promise.all(workers);
    for (let i = this.next; i < this.tasks.length; i++) {
      for (const change of this.tasks[i]!.changes)
        this.result.notAttempted.push({ address: change.address, action: change.action });
    }
    this.sortByPlan();
    return this.result;
  }

  private stop(why: NonNullable<ApplyResult['stoppedBy']>): void {
    this.result.stoppedBy ??= why;
  }

  /** True when no new task may start; notes why the first time. */
  private mustStop(): boolean {
    if (this.result.stoppedBy) return true;
    if (this.options.signal?.aborted) {
      this.stop({ message: 'interrupted', cause: 'signal' });
      return true;
    }
    const failure = this.options.recorder.failure?.() ?? null;
    if (failure) {
      this.stop({ ...errorInfo(failure, this.options.describeError), cause: 'record' });
      return true;
    }
    return false;
  }

  /**
   * A worker sends its next requests while the records of its answered tasks
   * are being made durable (the journal's fsync), so the disk's latency
   * overlaps the network's instead of adding to it, and the answers that
   * arrive during one fsync (or the journal's commit interval) share the
   * next. At most RECORDS_AHEAD tasks per worker are in that state: before
   * another starts, the oldest must have finished recording, and when it has
   * not, the recorder is asked to flush. Nothing counts as done before it is
   * recorded, and a record failure still stops scheduling; the requests in
   * flight then finish like any other.
   */
  private async worker(): Promise<void> {
    const recording: Recording[] = [];
    while (this.next < this.tasks.length && !this.mustStop()) {
      const task = this.tasks[this.next++]!;
      let answered!: () => void;
      const whenAnswered = new Promise<void>((resolve) => (answered = resolve));
      const item: Recording = { running: this.runTask(task, answered), settled: false };
      const settled = (): void => void (item.settled = true);
      item.running.then(settled, settled);
      await Promise.race([item.running, whenAnswered]);
      recording.push(item);
      if (recording.length > RECORDS_AHEAD) await this.recorded(recording.splice(0, 1));
    }
    await this.recorded(recording);
  }

  /**
   * Waits for the tasks of `items` to finish recording. The worker has
   * nothing to send meanwhile, so when one is still being recorded, the
   * recorder is asked to make what it holds durable now rather than group it
   * with later records (the journal's commit interval).
   */
  private async recorded(items: readonly Recording[]): Promise<void> {
    if (items.some((item) => !item.settled)) this.options.recorder.flush?.();
    await Promise.all(items.map((item) => item.running));
  }

  /**
   * Runs one task; `answered` is called when the task starts recording after
   * its last request (and any lookup) was answered: what is left is the write
   * to the state.
   */
  private async runTask(task: Task, answered: () => void): Promise<void> {
    const first = task.changes[0]!;
    this.emit({ type: 'start', address: first.address, action: first.action, count: task.changes.length });
    let status: number | undefined;
    let calls = 0;
    try {
      const client = observing(this.options.client, (s) => {
        if (s !== undefined) status = s;
        calls += 1;
      });
      const recorder = this.taskRecorder(() => {
        if (calls >= task.requests) answered();
      });
      this.taskDone(task, await task.run(client, recorder), status);
    } catch (err) {
      if (err instanceof UnrecordedError) this.unrecordedTask(task, err);
      else this.taskFailed(task, err);
    }
  }

  /** The run's recorder, telling `recording` before each record. */
  private taskRecorder(recording: () => void): Recorder {
    const recorder = this.options.recorder;
    return {
      record: (entry) => {
        recording();
        return recorder.record(entry);
      },
      failure: () => recorder.failure?.() ?? null,
      recorded: (address) => recorder.recorded?.(address) ?? null,
    };
  }

  private taskDone(task: Task, done: Awaited<ReturnType<Task['run']>>, status: number | undefined): void {
    const first = task.changes[0]!;
    const outcome = outcomeOf(done);
    const adoption = typeof done === 'string' ? undefined : done.adoption;
    for (const change of task.changes) {
      this.result.done.push({
        address: change.address,
        action: change.action,
        outcome,
        ...(adoption ? { adoption } : {}),
      });
    }
    this.emit({
      type: 'done',
      address: first.address,
      action: first.action,
      outcome,
      count: task.changes.length,
      ...(status !== undefined ? { status } : {}),
    });
  }

  /** A request failure: the task failed (or was not sent); a fatal one stops scheduling. */
  private taskFailed(task: Task, err: unknown): void {
    const first = task.changes[0]!;
    const { notSent, ...info } = errorInfo(err, this.options.describeError);
    if (info.code && FATAL_CODES.has(info.code)) this.stop({ ...info, cause: 'api' });
    if (notSent) {
      for (const change of task.changes)
        this.result.notAttempted.push({ address: change.address, action: change.action });
      return;
    }
    for (const change of task.changes) {
      this.result.failed.push({ address: change.address, action: change.action, ...info });
    }
    this.emit({
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

  /** A record failure: keep what was acknowledged, stop scheduling. */
  private unrecordedTask(task: Task, err: UnrecordedError): void {
    const info = errorInfo(err.cause, this.options.describeError);
    this.stop({ ...info, cause: 'record' });
    const lost = new Map(err.entries.map((e) => [entryAddress(e.entry), e]));
    const first = task.changes[0]!;
    for (const change of task.changes) {
      const item = lost.get(change.address);
      if (item) {
        this.result.unrecorded.push({
          address: change.address,
          action: change.action,
          outcome: item.outcome,
          entry: item.entry,
          message: info.message,
        });
      } else if (err.entries.length > 0) {
        // A batch whose other entries were recorded: this one was acknowledged and recorded.
        this.result.done.push({
          address: change.address,
          action: change.action,
          outcome: err.entries[0]!.outcome,
        });
      } else {
        this.result.failed.push({ address: change.address, action: change.action, ...info });
      }
    }
    this.emit({
      type: 'failed',
      address: first.address,
      action: first.action,
      message: `${err.entries.length > 0 ? 'acknowledged by the tenant but not recorded' : 'not recorded'}: ${info.message}`,
      count: task.changes.length,
    });
  }

  private sortByPlan(): void {
    const order = new Map(this.plan.changes.map((c, i) => [c.address, i]));
    const byPlan = (a: { address: string }, b: { address: string }) =>
      (order.get(a.address) ?? 0) - (order.get(b.address) ?? 0);
    this.result.done.sort(byPlan);
    this.result.failed.sort(byPlan);
    this.result.notAttempted.sort(byPlan);
    this.result.unrecorded.sort(byPlan);
  }
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
  return new ApplyRun(plan, options).execute();
}

/** Requests an apply of this plan would send at most, before retries. */
export function countRequests(plan: Plan, options: Pick<ApplyOptions, 'batchSize'> = {}): number {
  return buildTasks(plan, options).reduce((sum, t) => sum + t.requests, 0);
}

/** A client for plans that need no request (forget only): any call is a bug. */
export const offlineClient: ExecutorClient = {
  call: () => Promise.reject(new Error('no API connection for this apply')),
};
