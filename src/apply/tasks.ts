import type { Attributes, KindName, RecordedResource } from '../resources/index.js';
import { assertNever } from '../plan/index.js';
import type { Change, Plan } from '../plan/types.js';
import type { ApplyOptions, ExecutorClient, Outcome, RecordEntry, Recorder } from './types.js';

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

/** What a create answered: the server object (with its id), or nothing when it was already present (409). */
type Created = { id: string; created_at?: string } | null;

/**
 * The API operation behind each kind's create and delete. The planner only
 * plans a delete for kinds whose module says canDelete, so a missing entry
 * here is a programming error, reported as such.
 */
const OPERATIONS: Record<
  KindName,
  {
    create?: (client: ExecutorClient, body: Attributes) => Promise<Created>;
    delete?: (client: ExecutorClient, id: string) => Promise<'deleted' | 'gone'>;
  }
> = {
  rate_limit_policy: {
    create: async (client, body) => {
      const r = await client.createRateLimitPolicy(body);
      return r.outcome === 'created' ? r.policy : null;
    },
    delete: async (client, id) => (await client.deleteRateLimitPolicy(id)).outcome,
  },
  token_exchange_profile: {
    create: async (client, body) => {
      const r = await client.createTokenExchangeProfile(body);
      return r.outcome === 'created' ? r.profile : null;
    },
  },
  // Permissions are created in batches per user (permissionTasks) and cannot be deleted.
  user_permission: {},
};

function operation<K extends 'create' | 'delete'>(change: Change, which: K) {
  const op = OPERATIONS[change.kind][which];
  if (!op) throw new Error(`internal: no ${which} operation for ${change.kind} (${change.address})`);
  return op;
}

async function createOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  const created = await operation(change, 'create')(client, change.after ?? {});
  if (created) {
    const extra: Partial<RecordedResource> = {};
    if (created.created_at) extra.created_at = created.created_at;
    await recordAcknowledged(
      recorder,
      { op: 'put', resource: recordedFrom(change, created.id, extra) },
      'created',
    );
    return 'created';
  }
  await recordAcknowledged(
    recorder,
    { op: 'put', resource: recordedFrom(change, null, { adopted: true }) },
    'adopted',
  );
  return 'adopted';
}

async function deleteOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  if (!change.id) throw new Error(`${change.address} has no recorded id; cannot delete it`);
  const result = await operation(change, 'delete')(client, change.id);
  const outcome = result === 'deleted' ? 'deleted' : 'already-gone';
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

function permissionTasks(creates: Change[], batchSize: number): Task[] {
  const byUser = new Map<string, Change[]>();
  for (const change of creates) {
    const userId = String(change.after?.user_id ?? change.identity[0]);
    const list = byUser.get(userId);
    if (list) list.push(change);
    else byUser.set(userId, [change]);
  }
  const tasks: Task[] = [];
  for (const [userId, changes] of byUser) {
    for (let i = 0; i < changes.length; i += batchSize) {
      const batch = changes.slice(i, i + batchSize);
      tasks.push({
        changes: batch,
        requests: 1,
        run: async (client, recorder) => {
          await client.assignUserPermissions(
            userId,
            batch.map((ch) => ({
              resource_server_identifier: String(ch.after?.resource_server_identifier),
              permission_name: String(ch.after?.permission_name),
            })),
          );
          const entries: RecordEntry[] = batch.map((ch) => ({
            op: 'put',
            resource: recordedFrom(ch, null, {}),
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
  const permissionCreates: Change[] = [];
  for (const change of plan.changes) {
    if (change.kind === 'user_permission' && change.action === 'create') {
      permissionCreates.push(change);
      continue;
    }
    const task = singleTask(change);
    if (task) tasks.push(task);
  }
  tasks.push(...permissionTasks(permissionCreates, batchSize));
  return tasks;
}
