/**
 * A refresh request run: the tenant read (API profile full) and the state
 * brought up to date with it, under the lock, every change journaled before
 * it counts. Plans nothing and sends nothing but reads. The config names the
 * users whose permissions are read, and an unmanaged resource it declares is
 * recorded (with its id and live settings). A config reference the tenant
 * lacks stops it before anything is written; a reference list the token may
 * not read (403) is only a warning here.
 */
import type { TenantRead } from '../api/index.js';
import type { Refresh } from '../plan/index.js';
import type { StateSession, StateStore } from '../state/index.js';
import { openClient, readTarget } from './connection.js';
import { withLockedState } from './locked-state.js';
import { keepNames } from './known-names.js';
import type { DesiredResource } from '../resources/index.js';
import type { RefreshRequest, RunIO } from './requests.js';
import { loadDesired } from './review.js';
import { openInputStore } from './state-store.js';
import { describeStore, guardTenant } from './tenant-binding.js';
import { listParams, readLive, referencesHold } from './tenant-read.js';
import type { RunView } from './view.js';

/** How a refresh ended: the state brought up to date (what was written, the drift, the read), or stopped (told). */
export type RefreshResult =
  | { status: 'refreshed'; entries: Refresh['entries']; drift: Refresh['drift']; read: TenantRead }
  | { status: 'config-invalid' }
  | { status: 'references-missing' };

/** Under the lock: the target said, the tenant read and the state brought up to date. */
async function refreshLocked(
  request: RefreshRequest,
  run: { store: StateStore; desired: readonly DesiredResource[]; io: RunIO; view: RunView },
  session: StateSession,
): Promise<RefreshResult> {
  const { input, parallelism, connection } = request;
  const { store, desired, io, view } = run;
  const target = await readTarget(connection, input, io);
  view.event({
    kind: 'where',
    state: describeStore(store, io.cwd),
    target: { kind: 'set', baseUrl: target.baseUrl },
  });
  const guarded = { store, input, io, command: 'refresh' };
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  await guardTenant(session, guarded, tenant, false);
  const client = await openClient(connection, input, io, { parallelism, store });
  let read;
  try {
    read = await readLive(client, listParams(desired, session.doc), parallelism, desired);
  } finally {
    await client.close();
  }
  // Bound once the tenant has answered: a target that never answers binds nothing.
  await guardTenant(session, guarded, tenant, true);
  if (!(await referencesHold(desired, read.references, false, view))) return { status: 'references-missing' };
  const { refreshState } = await import('../plan/index.js');
  const { entries, drift } = refreshState(session.doc, read, desired);
  for (const entry of entries) await session.record(entry);
  await session.commit();
  await keepNames(store, read.references, io);
  return { status: 'refreshed', entries, drift, read };
}

/** Runs a refresh request: the config, then the state locked, the tenant read and the state brought up to date. */
export async function runRefresh(request: RefreshRequest, io: RunIO, view: RunView): Promise<RefreshResult> {
  const desired = await loadDesired(request.input, request.vars, io, view);
  if (!desired) return { status: 'config-invalid' };
  const store = await openInputStore(request.state, request.connection.named, request.input, io);
  try {
    const lock = { lockTimeoutMs: request.lockTimeoutMs };
    return await withLockedState(store, 'refresh', lock, io, (session) =>
      refreshLocked(request, { store, desired, io, view }, session),
    );
  } finally {
    await store.close();
  }
}
