/**
 * The tenant binding of a state (see src/run/tenant-binding.ts) for the
 * commands that take a CommandIO and flags (export, import).
 */
import type { StateSession, StateStore } from '../state/index.js';
import * as run from '../run/tenant-binding.js';
import { runIO } from './context.js';
import type { ConfigInput } from './inputs.js';
import type { CommandIO } from './io.js';

/**
 * Refuses a state bound to another tenant than the one the flags, the
 * environment or tenantform.yaml name, and with `bind` binds it to that one
 * before the first request. `tenant`: the target the command names and
 * whether it may move the state there.
 */
export async function guardTenant(
  session: StateSession,
  where: { store: StateStore; input: ConfigInput; io: CommandIO; command: string },
  tenant: { domain?: string; baseUrl?: string; reassignTenant?: boolean },
  bind: boolean,
): Promise<void> {
  await run.guardTenant(session, { ...where, io: runIO(where.io) }, tenant, bind);
}
