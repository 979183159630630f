import {
  kindOf,
  paramsFor,
  type KindModule,
  type OperationDescriptor,
  type RecordedResource,
} from '../resources/index.js';
import { assertNever } from '../plan/index.js';
import type { Change, Plan } from '../plan/types.js';
import type { ApplyOptions, ExecutorClient, Outcome, Recorder } from './types.js';

/**
 * A unit of work: one or more changes done by a fixed sequence of requests.
 * A task records each acknowledged request before it resolves, so a crash
 * at any point loses nothing that the tenant acknowledged.
 */
export interface Task {
  changes: Change[];
  /** Requests this task will send at most (before retries). */
  requests: number;
  run(client: ExecutorClient, recorder: Recorder): Promise<Outcome>;
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
  return { kind, op: kind.operations.create };
}

/** The path parameters of `op` for this change; throws when the change lacks the recorded id the path needs. */
function paramsOf(op: OperationDescriptor, change: Change, verb: string): Record<string, string> {
  const params = paramsFor(op, { id: change.id, attributes: change.after ?? change.before ?? {} });
  if (!params) throw new Error(`${change.address} has no recorded id; cannot ${verb} it`);
  return params;
}

async function createOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  const { kind, op } = createOperation(change);
  const attributes = change.after ?? {};
  const answer = await client.call(op, paramsOf(op, change, 'create'), kind.requestBody([attributes]));
  if (answer.outcome === 'done') {
    const { id, created_at } = kind.fromResponse(answer.body);
    const extra: Partial<RecordedResource> = created_at ? { created_at } : {};
    await recorder.record({ op: 'put', resource: recordedFrom(change, id, extra) });
    return 'created';
  }
  await recorder.record({ op: 'put', resource: recordedFrom(change, null, { adopted: true }) });
  return 'adopted';
}

async function deleteOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  const op = kindOf(change.kind).operations.delete;
  // The planner plans a delete only for kinds whose table has one.
  if (!op) throw new Error(`internal: no delete operation for ${change.kind} (${change.address})`);
  const answer = await client.call(op, paramsOf(op, change, 'delete'));
  await recorder.record({ op: 'remove', address: change.address });
  return answer.outcome === 'gone' ? 'already-gone' : 'deleted';
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
          await r.record({ op: 'remove', address: change.address });
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
          await Promise.all(
            batch.map((ch) => recorder.record({ op: 'put', resource: recordedFrom(ch, id, {}) })),
          );
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
