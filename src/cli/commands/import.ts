import { CliError, type CommandIO } from '../io.js';
import { lockTimeoutOf, withLockedState } from '../context.js';
import { guardTenant } from '../tenant-binding.js';
import { loadDesiredOrReport, openInputStore, resolveInputs, type ConfigInput } from '../inputs.js';
import type { Kind, LiveResource, OperationDescriptor } from '../../resources/index.js';
import type { ApiClient } from '../../api/index.js';
import type { ImportFlags } from '../definitions.js';

async function resolveAddress(
  first: string,
  second: string | undefined,
  third: string | undefined,
): Promise<{ address: string; kind: Kind; id: string | null }> {
  const { parseAddress, formatAddress, isKindName, kindOf, KINDS } = await import('../../resources/index.js');
  if (first.includes('[')) {
    const parsed = parseAddress(first);
    if (third) throw new CliError('usage: tenantform import ADDRESS [ID]');
    return {
      address: formatAddress(parsed.kind, parsed.identity),
      kind: kindOf(parsed.kind),
      id: second ?? null,
    };
  }
  if (!isKindName(first)) {
    const withIds = KINDS.filter((k) => k.id !== null).map((k) => k.name);
    throw new CliError(`unknown kind "${first}"; use ${withIds.join(' or ')}, or a full address`);
  }
  if (!second) throw new CliError('usage: tenantform import KIND IDENTITY [ID]');
  const kind = kindOf(first);
  const identity = kind.id ? kind.id.parseIdentity(second) : [second];
  if (!Array.isArray(identity)) throw new CliError(identity.problem);
  return { address: formatAddress(kind.name, identity), kind, id: third ?? null };
}

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
  const { address, kind, id } = await resolveAddress(first, second, third);
  if (!kind.id) throw new CliError(`${kind.title.many} have no id on the tenant; there is nothing to import`);
  const { isKindId, unverifiedReason } = await import('../../resources/index.js');
  if (id !== null && !isKindId(kind, id))
    throw new CliError(`"${id}" does not look like a ${kind.name} id (expected ${kind.id.description})`);
  const unverified = unverifiedReason(kind);

  const input = resolveInputs([flags.config], flags.env, flags.varFile, io, 'one')[0]!;
  if (id === null) return importLookedUp(address, kind, input, flags, io);
  const live = await import('../tenant-read.js');
  const { operationsFor } = await import('../../resources/index.js');
  const get = operationsFor(kind, await live.profileOf(flags, input)).get;
  if (get) return importRead(address, kind, id, get, input, flags, io);
  const desired = await loadDesiredOrReport(input.paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const store = await openInputStore(flags, input, io);
  try {
    return await withLockedState(
      store,
      'import',
      { lockTimeoutMs: lockTimeoutOf(flags), io },
      async (session) => {
        await guardTenant(session, { store, input, io, command: 'import' }, flags, false);
        const recorded = session.doc.resources.find((r) => r.address === address);
        const wanted = desired.find((d) => d.address === address);
        if (!recorded && !wanted) {
          throw new CliError(
            `${address} is neither in the state nor in the config at ${flags.config}; add it to the config first so that tenantform knows its settings`,
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
async function importRead(
  address: string,
  kind: Kind,
  id: string,
  get: OperationDescriptor,
  input: ConfigInput,
  flags: ImportFlags,
  io: CommandIO,
): Promise<number> {
  return importFromTenant(address, kind, input, flags, io, 'read on the tenant by its id', async (call) => {
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
async function importLookedUp(
  address: string,
  kind: Kind,
  input: ConfigInput,
  flags: ImportFlags,
  io: CommandIO,
): Promise<number> {
  const live = await import('../tenant-read.js');
  live.requireFull(await live.profileOf(flags, input), 'import without an id');
  const { parseAddress, operationsFor } = await import('../../resources/index.js');
  const { identity } = parseAddress(address);
  const attributes = Object.fromEntries(kind.identityFields.map((field, i) => [field, identity[i]]));
  const list = operationsFor(kind, 'full').list;
  if (!list)
    throw new CliError(`${kind.title.many} cannot be listed, so they cannot be looked up; give the id`);
  return importFromTenant(
    address,
    kind,
    input,
    flags,
    io,
    'found on the tenant by its identity',
    async (call) => {
      const api = await import('../../api/index.js');
      const { found } = await api.findLive(call, kind, list, attributes);
      if (!found) throw new CliError(`the tenant has no ${kind.title.one} ${address}; nothing was imported`);
      return found;
    },
  );
}

/** Reads the resource with `find` under the state lock and records its id and live settings. */
async function importFromTenant(
  address: string,
  kind: Kind,
  input: ConfigInput,
  flags: ImportFlags,
  io: CommandIO,
  how: string,
  find: (call: ApiClient['call']) => Promise<LiveResource>,
): Promise<number> {
  const live = await import('../tenant-read.js');
  const store = await openInputStore(flags, input, io);
  try {
    return await withLockedState(
      store,
      'import',
      { lockTimeoutMs: lockTimeoutOf(flags), io },
      async (session) => {
        const guarded = { store, input, io, command: 'import' };
        await guardTenant(session, guarded, flags, false);
        const client = await live.openClient(flags, input, io);
        let found;
        try {
          found = await find(client.call);
        } finally {
          await client.close();
        }
        // Bound once the tenant has answered: a target that never answers binds nothing.
        await guardTenant(session, guarded, flags, true);
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
