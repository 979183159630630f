import { CliError, type CommandIO } from '../io.js';
import { openStore, withLockedState, type StateFlags } from '../context.js';
import { loadDesiredOrReport } from './validate.js';
import { environmentStateFlags, resolveInputs } from '../inputs.js';
import type { KindName } from '../../resources/index.js';

export interface ImportFlags extends StateFlags {
  config: string;
  var: string[];
  varFile: string[];
  env?: string;
}

/** The spec's id format of each kind that has ids (schemas/*.schema.json). */
const ID_FORMATS: Partial<Record<KindName, { format: string; example: string }>> = {
  rate_limit_policy: {
    format: 'rate-limit-policy-id',
    example: 'rlp_ followed by up to 22 letters, digits, _ or -',
  },
  token_exchange_profile: {
    format: 'token-exchange-profile-id',
    example: 'tep_ followed by letters, digits, _ or -',
  },
};

async function resolveAddress(
  first: string,
  second: string | undefined,
  third: string | undefined,
): Promise<{ address: string; kind: KindName; id: string }> {
  const { parseAddress, formatAddress, isKindName } = await import('../../resources/index.js');
  if (first.includes('[')) {
    const parsed = parseAddress(first);
    if (!second || third) throw new CliError('usage: tenantform import ADDRESS ID');
    return { address: formatAddress(parsed.kind, parsed.identity), kind: parsed.kind, id: second };
  }
  if (!isKindName(first)) {
    throw new CliError(
      `unknown kind "${first}"; use rate_limit_policy or token_exchange_profile, or a full address`,
    );
  }
  if (!second || !third) throw new CliError('usage: tenantform import KIND IDENTITY ID');
  if (first === 'rate_limit_policy') {
    const [resource, consumer, ...rest] = second.split('/');
    if (!resource || !consumer || rest.length === 0) {
      throw new CliError(
        `rate limit policy identity must be resource/consumer/consumer_selector, e.g. oauth_authentication_api/client/default (got "${second}")`,
      );
    }
    return { address: formatAddress(first, [resource, consumer, rest.join('/')]), kind: first, id: third };
  }
  return { address: formatAddress(first, [second]), kind: first, id: third };
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
  if (kind === 'user_permission')
    throw new CliError('user permissions have no id on the tenant; there is nothing to import');
  const idFormat = ID_FORMATS[kind];
  const { matchesFormat } = await import('../../schemas/index.js');
  if (idFormat && !matchesFormat(idFormat.format, id))
    throw new CliError(`"${id}" does not look like a ${kind} id (expected ${idFormat.example})`);

  const input = resolveInputs([flags.config], flags.env, flags.varFile, io, 'one')[0]!;
  const desired = await loadDesiredOrReport(input.paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const store = await openStore(
    environmentStateFlags(flags, input),
    input.paths[input.paths.length - 1]!,
    io,
  );
  try {
    return await withLockedState(store, 'import', flags, async (session) => {
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
      const base = recorded ?? { kind, address, identity: wanted!.identity, attributes: wanted!.attributes };
      await session.record({ op: 'put', resource: { ...base, id, adopted: true } });
      await session.commit();
      io.stdout.write(
        `Imported ${address} with id ${id}. Its settings on the tenant were not verified (the API has no read operation);\n` +
          'tenantform assumes they match the recorded attributes.\n',
      );
      return 0;
    });
  } finally {
    await store.close();
  }
}
