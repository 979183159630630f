/**
 * A state is bound to the tenant it was applied to (`tenant` in the state
 * document: host and API base, no secret): its ids are that tenant's. Plan,
 * apply and the runs that read or record the tenant refuse another tenant
 * unless the request reassigns it, and bind the state before their first
 * request to a tenant.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { StateDocument, StateSession, StateStore, StateTenant } from '../state/index.js';
import { RunError } from './errors.js';
import type { ConfigInput, RunIO, TargetRequest } from './requests.js';
import { stateScopeOf } from './state-store.js';

/** The store's description, with a file path shown relative to `cwd` when inside it. */
export function describeStore(store: Pick<StateStore, 'description'>, cwd: string): string {
  const where = store.description;
  if (!isAbsolute(where)) return where;
  const rel = relative(cwd, where);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? where : rel.split(sep).join('/');
}

/** The tenant record of an API base URL. */
export function tenantOf(baseUrl: string): StateTenant {
  return { host: new URL(baseUrl).host, api_base: baseUrl };
}

/**
 * Throws RunError STATE_OTHER_TENANT when `doc` is bound to another tenant
 * than `target` (null: none given, nothing to compare); `reassign` lets it
 * pass. `state` describes the state, `command` the run.
 */
export function checkTenant(
  doc: StateDocument | null,
  target: string | null,
  reassign: boolean | undefined,
  state: string,
  command: string,
): void {
  const bound = doc?.tenant;
  if (!bound || target === null || bound.api_base === target || reassign === true) return;
  throw new RunError(
    { code: 'STATE_OTHER_TENANT', state, bound: bound.api_base, target, command },
    `the state ${state} belongs to the tenant at ${bound.api_base}, but this ${command} would act on ${target}; nothing was sent`,
  );
}

/** Binds the session's state to `target` (written at once when it changes), before a request is sent to it. */
export async function bindTenant(session: StateSession, target: string): Promise<void> {
  await session.bindTenant(tenantOf(target));
}

/**
 * For the runs that read the tenant or record what it holds (refresh,
 * export, import): refuses a state bound to another tenant than the one the
 * request, the environment or tenantform.yaml name, and with `bind` binds it
 * to that one before the first request.
 */
export async function guardTenant(
  session: StateSession,
  where: { store: StateStore; input: ConfigInput; io: RunIO; command: string },
  target: TargetRequest & { reassignTenant?: boolean },
  bind: boolean,
): Promise<void> {
  const { io } = where;
  const scope = await stateScopeOf(where.input, { domain: target.domain, baseUrl: target.baseUrl }, io);
  checkTenant(
    session.doc,
    scope.target,
    target.reassignTenant,
    describeStore(where.store, io.cwd),
    where.command,
  );
  if (bind && scope.target !== null) await bindTenant(session, scope.target);
}
