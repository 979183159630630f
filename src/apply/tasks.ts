import {
  kindOf,
  operationsFor,
  paramsFor,
  type KindModule,
  type OperationDescriptor,
  type RecordedResource,
} from '../resources/index.js';
import { assertNever, changedPaths } from '../plan/index.js';
import type { Change, Plan } from '../plan/types.js';
import type { Adoption, ApplyOptions, ExecutorClient, Outcome, RecordEntry, Recorder } from './types.js';

/** What a task did: its outcome, and for a create found present, what the lookup found. */
export type TaskOutcome = Outcome | { outcome: Outcome; adoption: Adoption };

/** The outcome of a TaskOutcome. */
export function outcomeOf(done: TaskOutcome): Outcome {
  return typeof done === 'string' ? done : done.outcome;
}

/**
 * Recording failed. `entries` lists every operation of the task that the
 * tenant acknowledged but that was not recorded: they must not be forgotten
 * (the caller keeps them, see state rescue). Empty when nothing was sent
 * (a forget).
 */
export class UnrecordedError extends Error {
  readonly code = 'APPLY_NOT_RECORDED';

  constructor(
    readonly entries: { entry: RecordEntry; outcome: Outcome }[],
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Records one acknowledged operation; a failure becomes UnrecordedError carrying the entry. */
async function recordAcknowledged(recorder: Recorder, entry: RecordEntry, outcome: Outcome): Promise<void> {
  try {
    await recorder.record(entry);
  } catch (err) {
    throw new UnrecordedError([{ entry, outcome }], err);
  }
}

/** The address an entry records. */
export function entryAddress(entry: RecordEntry): string {
  return entry.op === 'put' ? entry.resource.address : entry.address;
}

/**
 * A unit of work: one or more changes done by a fixed sequence of requests.
 * A task records each acknowledged request before it resolves, so a crash
 * at any point loses nothing that the tenant acknowledged.
 */
export interface Task {
  changes: Change[];
  /** Requests this task will send at most (before retries). */
  requests: number;
  run(client: ExecutorClient, recorder: Recorder): Promise<TaskOutcome>;
}

function recordedFrom(change: Change, id: string | null, extra: Partial<RecordedResource>): RecordedResource {
  return {
    kind: change.kind,
    address: change.address,
    identity: change.identity,
    attributes: change.after ?? {},
    id,
    ...extra,
  };
}

function createOperation(change: Change): { kind: KindModule; op: OperationDescriptor } {
  const kind = kindOf(change.kind);
  return { kind, op: operationsFor(kind, 'spec').create };
}

/** The path parameters of `op` for this change; throws when the change lacks the recorded id the path needs. */
function paramsOf(op: OperationDescriptor, change: Change, verb: string): Record<string, string> {
  const params = paramsFor(op, { id: change.id, attributes: change.after ?? change.before ?? {} });
  if (!params) throw new Error(`${change.address} has no recorded id; cannot ${verb} it`);
  return params;
}

async function createOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<TaskOutcome> {
  const { kind, op } = createOperation(change);
  const attributes = change.after ?? {};
  const answer = await client.call(op, paramsOf(op, change, 'create'), kind.requestBody([attributes]));
  if (answer.outcome === 'done') {
    const { id, created_at } = kind.fromResponse(answer.body);
    const extra: Partial<RecordedResource> = created_at ? { created_at } : {};
    await recordAcknowledged(recorder, { op: 'put', resource: recordedFrom(change, id, extra) }, 'created');
    return 'created';
  }
  // 409: it exists already. Where the tenant can be read, record its id and
  // live settings (verified, so not flagged adopted); a difference from the
  // config shows in the next plan as a change.
  const live = client.lookup ? await client.lookup(change.kind, attributes) : null;
  if (live) {
    const resource: RecordedResource = { ...recordedFrom(change, live.id, {}), attributes: live.attributes };
    await recordAcknowledged(recorder, { op: 'put', resource }, 'adopted');
    return {
      outcome: 'adopted',
      adoption: { id: live.id, differs: changedPaths(attributes, live.attributes) },
    };
  }
  await recordAcknowledged(
    recorder,
    { op: 'put', resource: recordedFrom(change, null, { adopted: true }) },
    'adopted',
  );
  return 'adopted';
}

async function deleteOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  const op = operationsFor(kindOf(change.kind), 'spec').delete;
  // The planner plans a delete only for kinds whose table has one.
  if (!op) throw new Error(`internal: no delete operation for ${change.kind} (${change.address})`);
  const answer = await client.call(op, paramsOf(op, change, 'delete'));
  const outcome = answer.outcome === 'gone' ? 'already-gone' : 'deleted';
  await recordAcknowledged(recorder, { op: 'remove', address: change.address }, outcome);
  return outcome;
}

function singleTask(change: Change): Task | null {
  switch (change.action) {
    case 'create':
      return { changes: [change], requests: 1, run: (c, r) => createOne(change, c, r) };
    case 'delete':
      return { changes: [change], requests: 1, run: (c, r) => deleteOne(change, c, r) };
    case 'replace':
      // Delete first: the uniqueness rule would answer 409 to a create while the old policy exists.
      return {
        changes: [change],
        requests: 2,
        run: async (c, r) => {
          await deleteOne(change, c, r);
          const created = await createOne(change, c, r);
          return created === 'created' ? 'replaced' : created;
        },
      };
    case 'forget':
      return {
        changes: [change],
        requests: 0,
        run: async (_c, r) => {
          // Nothing was sent, so nothing acknowledged is lost; the failure still stops the apply.
          await r.record({ op: 'remove', address: change.address }).catch((err: unknown) => {
            throw new UnrecordedError([], err);
          });
          return 'forgotten';
        },
      };
    case 'blocked':
    case 'no-op':
      return null;
    default:
      return assertNever(change.action);
  }
}

/**
 * Creates whose operation has a batch key, grouped by the key's value (one
 * request per user for permissions), in batches of `batchSize`. Every
 * resource of an acknowledged batch is recorded before the task resolves.
 */
function batchTasks(creates: Change[], batchSize: number): Task[] {
  const groups = new Map<string, Change[]>();
  for (const change of creates) {
    const key = createOperation(change).op.batchKey!;
    const group = `${change.kind}\u0000${String(change.after?.[key])}`;
    const list = groups.get(group);
    if (list) list.push(change);
    else groups.set(group, [change]);
  }
  const tasks: Task[] = [];
  for (const changes of groups.values()) {
    for (let i = 0; i < changes.length; i += batchSize) {
      const batch = changes.slice(i, i + batchSize);
      tasks.push({
        changes: batch,
        requests: 1,
        run: async (client, recorder) => {
          const first = batch[0]!;
          const { kind, op } = createOperation(first);
          const body = kind.requestBody(batch.map((ch) => ch.after ?? {}));
          const answer = await client.call(op, paramsOf(op, first, 'create'), body);
          const id = answer.outcome === 'done' ? kind.fromResponse(answer.body).id : null;
          const entries: RecordEntry[] = batch.map((ch) => ({
            op: 'put',
            resource: recordedFrom(ch, id, {}),
          }));
          const settled = await Promise.allSettled(entries.map((e) => recorder.record(e)));
          const lost = entries.flatMap((entry, i) =>
            settled[i]!.status === 'rejected' ? [{ entry, outcome: 'assigned' as const }] : [],
          );
          if (lost.length > 0) {
            const first = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult;
            throw new UnrecordedError(lost, first.reason);
          }
          return 'assigned';
        },
      });
    }
  }
  return tasks;
}

/** Turns a plan's applicable changes into tasks. Blocked and no-op changes produce none. */
export function buildTasks(plan: Plan, options: Pick<ApplyOptions, 'permissionBatchSize'>): Task[] {
  const batchSize = Math.max(1, options.permissionBatchSize ?? 100);
  const tasks: Task[] = [];
  const batched: Change[] = [];
  for (const change of plan.changes) {
    if (change.action === 'create' && createOperation(change).op.batchKey !== undefined) {
      batched.push(change);
      continue;
    }
    const task = singleTask(change);
    if (task) tasks.push(task);
  }
  tasks.push(...batchTasks(batched, batchSize));
  return tasks;
}
