/**
 * A state is bound to the tenant it was applied to (`tenant` in the state
 * document: host and API base, no secret): its ids are that tenant's. Plan,
 * apply and the commands that read or record the tenant refuse another
 * tenant unless told the state moved (--reassign-tenant), and bind the state
 * before their first request to a tenant.
 */
import type { StateDocument, StateSession, StateStore, StateTenant } from '../state/index.js';
import { stateScopeOf, type ConfigInput } from './inputs.js';
import { CliError, type CommandIO } from './io.js';
import { describeState } from './where.js';

/** The tenant record of an API base URL. */
export function tenantOf(baseUrl: string): StateTenant {
  return { host: new URL(baseUrl).host, api_base: baseUrl };
}

/**
 * Throws CliError STATE_OTHER_TENANT when `doc` is bound to another tenant
 * than `target` (null: none given, nothing to compare), naming both and the
 * ways on; `reassign` (--reassign-tenant) lets it pass.
 */
export function checkTenant(
  doc: StateDocument | null,
  target: string | null,
  reassign: boolean | undefined,
  where: string,
  command: string,
): void {
  const bound = doc?.tenant;
  if (!bound || target === null || bound.api_base === target || reassign === true) return;
  throw new CliError(
    `the state ${where} belongs to the tenant at ${bound.api_base}, but this ${command} would act on ${target}. ` +
      `Its ids are the other tenant's: acting on ${target} with them would create, delete or forget the wrong ` +
      'resources. Nothing was sent. Give each tenant a state of its own (--state FILE, or an environment per ' +
      'tenant in tenantform.yaml, each with its own target and state); or, if these very resources now live at ' +
      `${target}, pass --reassign-tenant to bind the state to it.`,
    1,
    'STATE_OTHER_TENANT',
  );
}

/** Binds the session's state to `target` (written at once when it changes), before a request is sent to it. */
export async function bindTenant(session: StateSession, target: string): Promise<void> {
  await session.bindTenant(tenantOf(target));
}

/**
 * For the commands that read the tenant or record what it holds (refresh,
 * export, import): refuses a state bound to another tenant than the one the
 * flags, the environment or tenantform.yaml name, and with `bind` binds it
 * to that one before the first request. `tenant`: the target the command
 * names and whether it may move the state there.
 */
export async function guardTenant(
  session: StateSession,
  where: { store: StateStore; input: ConfigInput; io: CommandIO; command: string },
  tenant: { domain?: string; baseUrl?: string; reassignTenant?: boolean },
  bind: boolean,
): Promise<void> {
  const { target } = await stateScopeOf(where.input, tenant, where.io);
  const state = describeState(where.store, where.io);
  checkTenant(session.doc, target, tenant.reassignTenant, state, where.command);
  if (bind && target !== null) await bindTenant(session, target);
}
