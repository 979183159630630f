import { CliError, type CommandIO } from '../io.js';
import { runIO, withLockedState } from '../context.js';
import { guardTenant } from '../tenant-binding.js';
import { loadDesiredOrReport } from '../inputs.js';
import { kindOf, type Kind, type LiveResource, type OperationDescriptor } from '../../resources/index.js';
import type { ApiClient } from '../../api/index.js';
import type { ImportFlags } from '../definitions.js';
import type { ImportRequest } from '../../run/read-requests.js';
import { openInputStore } from '../../run/state-store.js';
import { parseImportRequest } from '../read-requests.js';

/**
 * tenantform import: attach a server id to a resource so that it can be
 * deleted or replaced later. The attributes come from the state (an adopted
 * resource) or else from the config; the settings on the tenant stay unverified.
 */
export async function importAction(
  first: string,
  second: string | undefined,
  third: string | undefined,
  flags: ImportFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runImport(parseImportRequest([first, second, third], flags, io), io);
}

/** The state store of the request, opened, with the tenant guard's view of the request. */
async function openImportStore(request: ImportRequest, io: CommandIO) {
  const { connection, input } = request;
  const store = await openInputStore(request.state, connection.named, input, runIO(io));
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  return { store, guarded: { store, input, io, command: 'import' }, tenant };
}

/** Runs an import request: the id attached, read or looked up, and recorded; the exit code. */
async function runImport(request: ImportRequest, io: CommandIO): Promise<number> {
  const kind = kindOf(request.kind);
  const { how } = request;
  if (how.kind === 'look-up') return importLookedUp(request, kind, io);
  if (how.kind === 'read') return importRead(request, kind, how.id, io);
  const { input } = request;
  const desired = await loadDesiredOrReport(input.paths, { vars: how.vars, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const { address, configPath } = request;
  const { id } = how;
  const { unverifiedReason } = await import('../../resources/index.js');
  const unverified = unverifiedReason(kind);
  const { store, guarded, tenant } = await openImportStore(request, io);
  try {
    return await withLockedState(
      store,
      'import',
      { lockTimeoutMs: request.lockTimeoutMs, io },
      async (session) => {
        await guardTenant(session, guarded, tenant, false);
        const recorded = session.doc.resources.find((r) => r.address === address);
        const wanted = desired.find((d) => d.address === address);
        if (!recorded && !wanted) {
          throw new CliError(
            `${address} is neither in the state nor in the config at ${configPath}; add it to the config first so that tenantform knows its settings`,
          );
        }
        if (recorded?.id === id) {
          io.stdout.write(`${address} already has id ${id}; nothing to do.\n`);
          return 0;
        }
        const base = recorded ?? {
          kind: kind.name,
          address,
          identity: wanted!.identity,
          attributes: wanted!.attributes,
        };
        await session.record({ op: 'put', resource: { ...base, id, adopted: true } });
        await session.commit();
        io.stdout.write(
          `Imported ${address} with id ${id}. Its settings on the tenant were not verified${unverified ? ` (${unverified})` : ''};\n` +
            'tenantform assumes they match the recorded attributes.\n',
        );
        return 0;
      },
    );
  } finally {
    await store.close();
  }
}

/**
 * tenantform import ADDRESS ID where the tenant can read a resource by its id
 * (API profile full): reads it, refuses an id the tenant does not have (404)
 * or that names another resource, and records its id and live settings.
 */
async function importRead(request: ImportRequest, kind: Kind, id: string, io: CommandIO): Promise<number> {
  const { address } = request;
  const { operationsFor } = await import('../../resources/index.js');
  const get: OperationDescriptor = operationsFor(kind, request.api).get!;
  return importFromTenant(request, kind, io, 'read on the tenant by its id', async (call) => {
    const result = await call(get, { id }, undefined, {});
    if (result.outcome !== 'done') {
      const why = result.status === 404 ? 'has no' : `did not give (${result.status})`;
      throw new CliError(`the tenant ${why} ${kind.title.one} with id ${id}; nothing was imported`);
    }
    const { liveResource } = await import('../../resources/index.js');
    const { attributes } = kind.fromLive(result.body, {});
    const found = liveResource(kind.name, attributes, id);
    if (found.address !== address) {
      throw new CliError(`${id} on the tenant is ${found.address}, not ${address}; nothing was imported`);
    }
    return found;
  });
}

/**
 * tenantform import ADDRESS without an id (API profile full): looks the
 * resource up on the tenant by its identity, as a 409 on create does, and
 * records its id and live settings. A difference from the config shows in
 * the next plan.
 */
async function importLookedUp(request: ImportRequest, kind: Kind, io: CommandIO): Promise<number> {
  const { address } = request;
  const { parseAddress, operationsFor } = await import('../../resources/index.js');
  const { identity } = parseAddress(address);
  const attributes = Object.fromEntries(kind.identityFields.map((field, i) => [field, identity[i]]));
  const list = operationsFor(kind, 'full').list!;
  return importFromTenant(request, kind, io, 'found on the tenant by its identity', async (call) => {
    const api = await import('../../api/index.js');
    const { found } = await api.findLive(call, kind, list, attributes);
    if (!found) throw new CliError(`the tenant has no ${kind.title.one} ${address}; nothing was imported`);
    return found;
  });
}

/** Reads the resource with `find` under the state lock and records its id and live settings. */
async function importFromTenant(
  request: ImportRequest,
  kind: Kind,
  io: CommandIO,
  how: string,
  find: (call: ApiClient['call']) => Promise<LiveResource>,
): Promise<number> {
  const { address } = request;
  const { openClient } = await import('../../run/connection.js');
  const { store, guarded, tenant } = await openImportStore(request, io);
  try {
    return await withLockedState(
      store,
      'import',
      { lockTimeoutMs: request.lockTimeoutMs, io },
      async (session) => {
        await guardTenant(session, guarded, tenant, false);
        const client = await openClient(request.connection, request.input, runIO(io));
        let found;
        try {
          found = await find(client.call);
        } finally {
          await client.close();
        }
        // Bound once the tenant has answered: a target that never answers binds nothing.
        await guardTenant(session, guarded, tenant, true);
        const { parseAddress } = await import('../../resources/index.js');
        await session.record({
          op: 'put',
          resource: {
            kind: kind.name,
            address,
            identity: parseAddress(address).identity,
            attributes: found.attributes,
            id: found.id,
          },
        });
        await session.commit();
        io.stdout.write(
          `Imported ${address} with id ${found.id ?? '(none)'}, ${how}; its live settings are recorded.\n`,
        );
        return 0;
      },
    );
  } finally {
    await store.close();
  }
}
