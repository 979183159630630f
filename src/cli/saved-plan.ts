/**
 * `apply PLANFILE` and `show PLANFILE`: a saved plan opened and checked by
 * src/run/saved-plan.ts; its refusal (a PlanError) exits EXIT_PLAN_REFUSED
 * (refusedPlanExit), so that CI tells a plan to make again from an apply
 * that failed.
 */
import { PlanError } from '../plan/errors.js';
import type { StateRequest } from '../run/requests.js';
import * as run from '../run/saved-plan.js';
import { runIO } from './context.js';
import { messageOf } from './run-words.js';
import { CliError, EXIT_PLAN_REFUSED, type CommandIO } from './io.js';

export type { AppliedState, SealedPlan } from '../run/saved-plan.js';

/** Reads a saved plan and checks its seal (see openSealedPlan in src/run/saved-plan.ts). */
export async function openSealedPlan(
  planArg: string,
  state: StateRequest,
  io: CommandIO,
  applied?: run.AppliedState,
): Promise<run.SealedPlan> {
  return run.openSealedPlan(planArg, state, runIO(io), applied);
}

/** A PlanError refusing a saved plan, as a CliError that exits EXIT_PLAN_REFUSED (nothing was sent). */
function refused(err: unknown): unknown {
  return err instanceof PlanError ? new CliError(messageOf(err), EXIT_PLAN_REFUSED, err.code) : err;
}

/** Runs `fn` (reading or checking a saved plan), turning its refusal into EXIT_PLAN_REFUSED. */
export async function refusedPlanExit<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw refused(err);
  }
}
