/**
 * `apply PLANFILE` and `show PLANFILE`: whether a saved plan may be used,
 * decided before any state directory, lock or request. First its seal,
 * checked with the plan key of the state it names (openSealedPlan): an
 * edited file is refused before anything in it is acted on. Then, for
 * apply: one plan file and no config flags; the state the command, the
 * --env environment or the default location of the current directory names
 * (never the file's record alone), which must be the one it was made from
 * (location, lineage, serial); a target confirmed by the
 * command line, the environment or tenantform.yaml, never by the file alone;
 * and every change checked against that state and the schemas
 * (verifySavedPlan). A refusal is a PlanError, which the runs make a
 * RunError PLAN_REFUSED (refusal): src/cli gives it an exit of its own, so
 * that CI tells a plan to make again from an apply that failed.
 */
import { readFileSync } from 'node:fs';
import { PlanError } from '../plan/errors.js';
import type { Plan, SavedPlan } from '../plan/index.js';
import type { StateDocument, StateLocation, StateStore } from '../state/index.js';
import type { ApplyRequest, ConfigInput, RunIO, StateRequest, TargetRequest } from './requests.js';
import { RunError } from './errors.js';
import { absolute, openStore, resolveStateLocation, stateScopeOf, targetGiven } from './state-store.js';

export interface SavedPlanApply {
  /** The store of the state the plan was made from. */
  store: StateStore;
  /** The plan to execute against `doc` (the locked state): checked again, ids and `before` from `doc`. */
  planFor(doc: StateDocument): Plan;
  /** The target the command line or the environment names: never the plan's own. */
  target: TargetRequest;
  /** The --env environment of ./tenantform.yaml (its target and credential variables), or none. */
  input: ConfigInput;
}

/** The state show uses: the plan's own location unless the command line names a state. */
function stateFor(state: StateRequest, recorded: StateLocation): StateRequest {
  const named =
    state.file !== undefined ||
    state.backend !== undefined ||
    state.workspace !== undefined ||
    (state.backendConfig?.length ?? 0) > 0;
  if (named) {
    // The file backend without a file means the plan's file, if it has one.
    return state.file === undefined && (state.backend ?? 'file') === 'file' && recorded.backend === 'file'
      ? { ...state, file: recorded.path }
      : state;
  }
  return recorded.backend === 'file'
    ? { ...state, file: recorded.path }
    : {
        ...state,
        backend: 'pg',
        workspace: recorded.workspace,
        backendConfig: [`schema=${recorded.schema}`],
      };
}

/** A saved plan whose seal holds, and the store of its state (open: the caller closes it). */
export interface SealedPlan {
  saved: SavedPlan;
  store: StateStore;
}

/**
 * Where apply takes the state from: what the command or the environment
 * names (`flags`, the --env environment's `state:` already in them), else the
 * default location of the environment's paths, or of this directory (as
 * `apply` without a path uses), for its environment and target. Never the
 * plan file's own record: a plan names a state, it does not choose it.
 */
export interface AppliedState {
  input: ConfigInput;
  target: TargetRequest;
}

/** A PlanError refusing a saved plan, as a RunError PLAN_REFUSED (nothing was sent); any other error as it is. */
export function refusal(err: unknown): unknown {
  return err instanceof PlanError ? new RunError({ code: 'PLAN_REFUSED', error: err }, err.message) : err;
}

/** openSealedPlan for a command that only shows the plan (show): its refusal a RunError PLAN_REFUSED. */
export async function openPlanToShow(planArg: string, state: StateRequest, io: RunIO): Promise<SealedPlan> {
  try {
    return await openSealedPlan(planArg, state, io);
  } catch (err) {
    throw refusal(err);
  }
}

/**
 * Reads a saved plan and checks its seal, before anything else, with the
 * plan key of the state it names; state flags on the command line that name
 * another state are refused first. With `applied` (apply), the state is the
 * one the command, the environment or the default location names, and a plan
 * made from another is refused (PLAN_OTHER_STATE). Throws PlanError
 * (PLAN_UNSEALED, PLAN_TAMPERED, PLAN_KEY_MISSING, PLAN_OTHER_STATE,
 * PLAN_INVALID …) having created nothing: a missing key is never made here.
 */
export async function openSealedPlan(
  planArg: string,
  state: StateRequest,
  io: RunIO,
  applied?: AppliedState,
): Promise<SealedPlan> {
  const planModule = await import('../plan/index.js');
  const envelope = planModule.openPlanFile(readFileSync(absolute(planArg, io), 'utf8'), planArg);
  const { located, configPath, scope } = applied
    ? {
        located: state,
        configPath: applied.input.paths[applied.input.paths.length - 1] ?? '.',
        scope: await stateScopeOf(applied.input, applied.target, io),
      }
    : { located: stateFor(state, envelope.stateLocation), configPath: planArg, scope: undefined };
  planModule.checkPlanLocation(envelope, await resolveStateLocation(located, configPath, io, scope), planArg);
  const store = await openStore(located, configPath, io, scope);
  try {
    const key = await store.planKey({ create: false });
    return { saved: planModule.readPlanFile(envelope, key, store.planKeyWhere), store };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * Reads the plan file and checks everything that can be checked without the
 * lock; returns the state store to lock and the function that checks the
 * plan again under the lock. Throws PlanError (or another layer's error),
 * having created nothing and sent nothing.
 */
export async function openSavedPlan(
  planArg: string,
  request: Pick<ApplyRequest, 'state' | 'connection' | 'api'> & { input: ConfigInput },
  io: RunIO,
): Promise<SavedPlanApply> {
  const { input } = request;
  // The target comes from the command line, the environment or tenantform.yaml; the plan only confirms it.
  const target = request.connection.target;
  const { saved, store } = await openSealedPlan(planArg, request.state, io, { input, target });
  try {
    const [planModule, api, { readStateSnapshot }] = await Promise.all([
      import('../plan/index.js'),
      import('../api/index.js'),
      import('../state/index.js'),
    ]);
    // Without a profile named the plan's own is used; another one is refused before anything else.
    if (request.api !== undefined) planModule.checkPlanProfile(saved, request.api, planArg);
    const given = targetGiven(target, io.env) ? api.resolveTarget(target, io.env).baseUrl : null;
    planModule.checkPlanTarget(saved, given, planArg);

    const check = (doc: StateDocument | null): Plan => {
      planModule.checkPlanIsCurrent(saved.plan, doc);
      return planModule.verifySavedPlan(saved.plan, doc, planArg);
    };
    check(await readStateSnapshot(store));
    return {
      store,
      // A state never written (serial 0) is the same as no state at plan time.
      planFor: (doc) => check(doc.serial === 0 ? null : doc),
      target,
      input,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
