import {
  kindOf,
  operationsFor,
  paramsFor,
  updateBody,
  type ApiProfile,
  type Attributes,
  type KindModule,
  type OperationDescriptor,
  type RecordedResource,
} from '../resources/index.js';
import { assertNever, changedPaths, updatedAttributes } from '../plan/index.js';
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

function createOperation(change: Change, api: ApiProfile): { kind: KindModule; op: OperationDescriptor } {
  const kind = kindOf(change.kind);
  return { kind, op: operationsFor(kind, api).create };
}

/** The kind's delete operation under `api`; the planner plans a delete only when there is one. */
function deleteOperation(change: Change, api: ApiProfile): { kind: KindModule; op: OperationDescriptor } {
  const kind = kindOf(change.kind);
  const op = operationsFor(kind, api).delete;
  if (!op) throw new Error(`internal: no delete operation for ${change.kind} (${change.address})`);
  return { kind, op };
}

/** The operation of a change that goes in batches (permissions: one request per user), or null. */
function batchedOperation(change: Change, api: ApiProfile): OperationDescriptor | null {
  const op =
    change.action === 'create'
      ? createOperation(change, api).op
      : change.action === 'delete'
        ? deleteOperation(change, api).op
        : null;
  return op?.batchKey ? op : null;
}

/** What a batched change's request lists: the desired attributes of a create, the recorded ones of a delete. */
function batchAttributes(change: Change): Attributes | null {
  return change.action === 'create' ? change.after : change.before;
}

/** The path parameters of `op` for this change; throws when the change lacks the recorded id the path needs. */
function paramsOf(op: OperationDescriptor, change: Change, verb: string): Record<string, string> {
  const params = paramsFor(op, { id: change.id, attributes: change.after ?? change.before ?? {} });
  if (!params) throw new Error(`${change.address} has no recorded id; cannot ${verb} it`);
  return params;
}

async function createOne(
  change: Change,
  client: ExecutorClient,
  recorder: Recorder,
  api: ApiProfile,
): Promise<TaskOutcome> {
  const { kind, op } = createOperation(change, api);
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

async function deleteOne(
  change: Change,
  client: ExecutorClient,
  recorder: Recorder,
  api: ApiProfile,
): Promise<Outcome> {
  const { kind, op } = deleteOperation(change, api);
  // A delete with a body (permissions) names what it removes, as the batch does.
  const body = op.request ? kind.requestBody([change.before ?? {}]) : undefined;
  const answer = await client.call(op, paramsOf(op, change, 'delete'), body);
  const outcome = answer.outcome === 'gone' ? 'already-gone' : 'deleted';
  await recordAcknowledged(recorder, { op: 'remove', address: change.address }, outcome);
  return outcome;
}

/**
 * Updates in place: sends the changed updatable attributes and records the
 * new attributes under the same id, with the created_at of the answer or else
 * of the record. A 404 means the resource was deleted
 * outside tenantform: the record is removed, so the next plan creates it.
 * A kill between the answer and the record is repaired by the next run
 * sending the same update again (same body: idempotent).
 */
async function updateOne(
  change: Change,
  client: ExecutorClient,
  recorder: Recorder,
  api: ApiProfile,
): Promise<Outcome> {
  const kind = kindOf(change.kind);
  const op = operationsFor(kind, api).update;
  if (!op) throw new Error(`internal: no update operation for ${change.kind} (${change.address})`);
  const after = change.after ?? {};
  const body = updateBody(kind, after, updatedAttributes(change));
  const answer = await client.call(op, paramsOf(op, change, 'update'), body);
  if (answer.outcome === 'gone') {
    await recordAcknowledged(recorder, { op: 'remove', address: change.address }, 'already-gone');
    return 'already-gone';
  }
  const answered =
    answer.outcome === 'done' && answer.body !== undefined ? kind.fromResponse(answer.body) : null;
  const createdAt = answered?.created_at ?? recorder.recorded?.(change.address)?.created_at;
  const extra: Partial<RecordedResource> = createdAt ? { created_at: createdAt } : {};
  await recordAcknowledged(
    recorder,
    { op: 'put', resource: recordedFrom(change, change.id, extra) },
    'updated',
  );
  return 'updated';
}

function singleTask(change: Change, api: ApiProfile): Task | null {
  switch (change.action) {
    case 'create':
      return { changes: [change], requests: 1, run: (c, r) => createOne(change, c, r, api) };
    case 'update':
      return { changes: [change], requests: 1, run: (c, r) => updateOne(change, c, r, api) };
    case 'delete':
      return { changes: [change], requests: 1, run: (c, r) => deleteOne(change, c, r, api) };
    case 'replace':
      // Delete first: the uniqueness rule would answer 409 to a create while the old policy exists.
      return {
        changes: [change],
        requests: 2,
        run: async (c, r) => {
          await deleteOne(change, c, r, api);
          const created = await createOne(change, c, r, api);
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
 * Creates and deletes whose operation has a batch key, grouped by action and
 * the key's value (one request per user for permissions: an assign, or under
 * API profile full a removal), in batches of `batchSize`. Every resource of an
 * acknowledged batch is recorded before the task resolves.
 */
function batchTasks(changes: Change[], batchSize: number, api: ApiProfile): Task[] {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const key = batchedOperation(change, api)!.batchKey!;
    const group = `${change.action}\u0000${change.kind}\u0000${String(batchAttributes(change)?.[key])}`;
    const list = groups.get(group);
    if (list) list.push(change);
    else groups.set(group, [change]);
  }
  const tasks: Task[] = [];
  for (const members of groups.values()) {
    for (let i = 0; i < members.length; i += batchSize) {
      const batch = members.slice(i, i + batchSize);
      tasks.push({
        changes: batch,
        requests: 1,
        run: (client, recorder) => runBatch(batch, client, recorder, api),
      });
    }
  }
  return tasks;
}

/** Records every entry of an acknowledged batch; the ones that could not be recorded fail the task together. */
async function recordBatch(entries: RecordEntry[], outcome: Outcome, recorder: Recorder): Promise<void> {
  const settled = await Promise.allSettled(entries.map((e) => recorder.record(e)));
  const lost = entries.flatMap((entry, i) => (settled[i]!.status === 'rejected' ? [{ entry, outcome }] : []));
  if (lost.length > 0) {
    const first = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    throw new UnrecordedError(lost, first.reason);
  }
}

/**
 * Sends a batch (creates or deletes sharing a batch key value) as one request
 * listing every member, then records every member: an assignment under the
 * id the answer gave (none for permissions), a removal by its address.
 */
async function runBatch(
  batch: Change[],
  client: ExecutorClient,
  recorder: Recorder,
  api: ApiProfile,
): Promise<Outcome> {
  const first = batch[0]!;
  const op = batchedOperation(first, api)!;
  const kind = kindOf(first.kind);
  const body = kind.requestBody(batch.map((ch) => batchAttributes(ch) ?? {}));
  const answer = await client.call(op, paramsOf(op, first, first.action), body);
  if (first.action === 'create') {
    const id = answer.outcome === 'done' ? kind.fromResponse(answer.body).id : null;
    const puts = batch.map((ch): RecordEntry => ({ op: 'put', resource: recordedFrom(ch, id, {}) }));
    await recordBatch(puts, 'assigned', recorder);
    return 'assigned';
  }
  const removals = batch.map((ch): RecordEntry => ({ op: 'remove', address: ch.address }));
  await recordBatch(removals, 'deleted', recorder);
  return 'deleted';
}

/** Turns a plan's applicable changes into tasks. Blocked and no-op changes produce none. */
export function buildTasks(plan: Plan, options: Pick<ApplyOptions, 'batchSize'>): Task[] {
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const tasks: Task[] = [];
  const batched: Change[] = [];
  for (const change of plan.changes) {
    if (batchedOperation(change, plan.api)) {
      batched.push(change);
      continue;
    }
    const task = singleTask(change, plan.api);
    if (task) tasks.push(task);
  }
  tasks.push(...batchTasks(batched, batchSize, plan.api));
  return tasks;
}
