import type { RecordedResource } from '../resources/index.js';
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

async function createOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  const body = change.after ?? {};
  const result =
    change.kind === 'rate_limit_policy'
      ? await client
          .createRateLimitPolicy(body)
          .then((r) =>
            r.outcome === 'created'
              ? { outcome: r.outcome, obj: r.policy }
              : { outcome: r.outcome, obj: null },
          )
      : await client
          .createTokenExchangeProfile(body)
          .then((r) =>
            r.outcome === 'created'
              ? { outcome: r.outcome, obj: r.profile }
              : { outcome: r.outcome, obj: null },
          );
  if (result.obj) {
    const extra: Partial<RecordedResource> = {};
    if (result.obj.created_at) extra.created_at = result.obj.created_at;
    await recorder.record({ op: 'put', resource: recordedFrom(change, result.obj.id, extra) });
    return 'created';
  }
  await recorder.record({ op: 'put', resource: recordedFrom(change, null, { adopted: true }) });
  return 'adopted';
}

async function deleteOne(change: Change, client: ExecutorClient, recorder: Recorder): Promise<Outcome> {
  if (!change.id) throw new Error(`${change.address} has no recorded id; cannot delete it`);
  const result = await client.deleteRateLimitPolicy(change.id);
  await recorder.record({ op: 'remove', address: change.address });
  return result.outcome === 'deleted' ? 'deleted' : 'already-gone';
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
    default:
      return null;
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
          await Promise.all(
            batch.map((ch) => recorder.record({ op: 'put', resource: recordedFrom(ch, null, {}) })),
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
