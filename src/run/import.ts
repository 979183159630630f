/**
 * An import request run: one resource's server id recorded in the state,
 * under its lock, so that it can be deleted or replaced later. The id is
 * attached as given (the attributes from the state, an adopted resource, or
 * else from the config; the settings on the tenant stay unverified), read on
 * the tenant by that id, or looked up there by the resource's identity (API
 * profile full: its id and live settings recorded).
 */
import type { ApiClient } from '../api/index.js';
import {
  kindOf,
  type Kind,
  type LiveResource,
  type OperationDescriptor,
  type DesiredResource,
} from '../resources/index.js';
import type { StateSession, StateStore } from '../state/index.js';
import { RunError } from './errors.js';
import { withLockedState } from './locked-state.js';
import type { ImportRequest } from './read-requests.js';
import type { RunIO } from './requests.js';
import { loadDesired } from './review.js';
import { openInputStore } from './state-store.js';
import { guardTenant } from './tenant-binding.js';
import type { RunView } from './view.js';

/** How an import ended: the id recorded (how), already there, or the config had problems (told). */
export type ImportResult =
  | { status: 'config-invalid' }
  | { status: 'unchanged'; address: string; id: string }
  /** Attached as given; `unverified`: why the tenant's settings could not be checked, if the kind says. */
  | { status: 'attached'; address: string; id: string; unverified: string | null }
  /** Read on the tenant by its id, or found there by its identity; its live settings recorded. */
  | { status: 'imported'; address: string; id: string | null; how: 'read' | 'look-up' };

/** Runs `fn` with the request's state store locked and checked against the request's tenant. */
async function underLock<T>(
  request: ImportRequest,
  io: RunIO,
  fn: (session: StateSession, guard: (bind: boolean) => Promise<void>) => Promise<T>,
): Promise<T> {
  const { connection, input } = request;
  const store: StateStore = await openInputStore(request.state, connection.named, input, io);
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  try {
    return await withLockedState(store, 'import', { lockTimeoutMs: request.lockTimeoutMs }, io, (session) =>
      fn(session, (bind) => guardTenant(session, { store, input, io, command: 'import' }, tenant, bind)),
    );
  } finally {
    await store.close();
  }
}

/** Attaches the id given to the resource the state records, or else the config declares. */
async function importAttached(
  request: ImportRequest,
  kind: Kind,
  id: string,
  desired: readonly DesiredResource[],
  io: RunIO,
): Promise<ImportResult> {
  const { address } = request;
  const { unverifiedReason } = await import('../resources/index.js');
  return underLock(request, io, async (session, guard) => {
    await guard(false);
    const recorded = session.doc.resources.find((r) => r.address === address);
    const wanted = desired.find((d) => d.address === address);
    if (!recorded && !wanted) {
      const problem = { code: 'IMPORT_UNKNOWN', address, configPath: request.configPath } as const;
      throw new RunError(
        problem,
        `${address} is neither in the state nor in the config at ${request.configPath}`,
      );
    }
    if (recorded?.id === id) return { status: 'unchanged', address, id };
    const base = recorded ?? {
      kind: kind.name,
      address,
      identity: wanted!.identity,
      attributes: wanted!.attributes,
    };
    await session.record({ op: 'put', resource: { ...base, id, adopted: true } });
    await session.commit();
    return { status: 'attached', address, id, unverified: unverifiedReason(kind) ?? null };
  });
}

/** Reads the resource with `find` under the state lock and records its id and live settings. */
async function importFromTenant(
  request: ImportRequest,
  kind: Kind,
  io: RunIO,
  how: 'read' | 'look-up',
  find: (call: ApiClient['call']) => Promise<LiveResource>,
): Promise<ImportResult> {
  const { address } = request;
  const { openClient } = await import('./connection.js');
  return underLock(request, io, async (session, guard) => {
    await guard(false);
    const client = await openClient(request.connection, request.input, io);
    let found;
    try {
      found = await find(client.call);
    } finally {
      await client.close();
    }
    // Bound once the tenant has answered: a target that never answers binds nothing.
    await guard(true);
    const { parseAddress } = await import('../resources/index.js');
    const resource = {
      kind: kind.name,
      address,
      identity: parseAddress(address).identity,
      attributes: found.attributes,
      id: found.id,
    };
    await session.record({ op: 'put', resource });
    await session.commit();
    return { status: 'imported', address, id: found.id, how };
  });
}

/**
 * Reads the resource by its id (API profile full): refuses an id the tenant
 * does not have (404) or that names another resource.
 */
async function importRead(request: ImportRequest, kind: Kind, id: string, io: RunIO): Promise<ImportResult> {
  const { address } = request;
  const { operationsFor, liveResource } = await import('../resources/index.js');
  const get: OperationDescriptor = operationsFor(kind, request.api).get!;
  return importFromTenant(request, kind, io, 'read', async (call) => {
    const result = await call(get, { id }, undefined, {});
    if (result.outcome !== 'done') {
      const problem = {
        code: 'IMPORT_ID_UNKNOWN',
        title: kind.title.one,
        id,
        status: result.status,
      } as const;
      throw new RunError(problem, `the tenant did not give ${kind.title.one} ${id} (${result.status})`);
    }
    const found = liveResource(kind.name, kind.fromLive(result.body, {}).attributes, id);
    if (found.address !== address) {
      const problem = { code: 'IMPORT_ID_OTHER', id, found: found.address, address } as const;
      throw new RunError(problem, `${id} on the tenant is ${found.address}, not ${address}`);
    }
    return found;
  });
}

/** Looks the resource up on the tenant by its identity (API profile full), as a 409 on create does. */
async function importLookedUp(request: ImportRequest, kind: Kind, io: RunIO): Promise<ImportResult> {
  const { address } = request;
  const { parseAddress, operationsFor } = await import('../resources/index.js');
  const { identity } = parseAddress(address);
  const attributes = Object.fromEntries(kind.identityFields.map((field, i) => [field, identity[i]]));
  const list = operationsFor(kind, 'full').list!;
  return importFromTenant(request, kind, io, 'look-up', async (call) => {
    const api = await import('../api/index.js');
    const { found } = await api.findLive(call, kind, list, attributes);
    if (!found) {
      const problem = { code: 'IMPORT_NOT_ON_TENANT', title: kind.title.one, address } as const;
      throw new RunError(problem, `the tenant has no ${kind.title.one} ${address}`);
    }
    return found;
  });
}

/**
 * Runs an import request: the id attached (the config loaded first, its
 * problems told to `view`), read or looked up, and recorded.
 */
export async function runImport(
  request: ImportRequest,
  io: RunIO,
  view: Pick<RunView, 'event'>,
): Promise<ImportResult> {
  const kind = kindOf(request.kind);
  const { how } = request;
  if (how.kind === 'look-up') return importLookedUp(request, kind, io);
  if (how.kind === 'read') return importRead(request, kind, how.id, io);
  const desired = await loadDesired(request.input, how.vars, io, view);
  if (!desired) return { status: 'config-invalid' };
  return importAttached(request, kind, how.id, desired, io);
}
