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
 * (verifySavedPlan). A refusal exits EXIT_PLAN_REFUSED (refusedPlanExit), so
 * that CI tells a plan to make again from an apply that failed.
 */
import { readFileSync } from 'node:fs';
import type { Plan, SavedPlan } from '../plan/index.js';
import { PlanError } from '../plan/errors.js';
import type { StateDocument, StateLocation, StateStore } from '../state/index.js';
import { absolute, openStore, resolveStateLocation, type StateFlags } from './context.js';
import {
  environmentStateFlags,
  environmentTargetFlags,
  resolveInputs,
  stateScopeOf,
  type ConfigInput,
} from './inputs.js';
import { CliError, EXIT_PLAN_REFUSED, type CommandIO } from './io.js';
import { targetGiven } from './where.js';
import type { ApplyFlags } from './definitions.js';

/** The flags apply was given with a plan file (most are refused: the plan decides). */
export type SavedPlanFlags = StateFlags &
  Pick<ApplyFlags, 'var' | 'varFile' | 'allEnvs' | 'domain' | 'baseUrl' | 'api'> & {
    env?: string | string[];
  };

export interface SavedPlanApply {
  /** The store of the state the plan was made from. */
  store: StateStore;
  /** The plan to execute against `doc` (the locked state): checked again, ids and `before` from `doc`. */
  planFor(doc: StateDocument): Plan;
  /** --domain / --base-url, or those of the --env environment: never the plan's own target. */
  targetFlags: { domain?: string; baseUrl?: string };
  /** The --env environment of ./tenantform.yaml (its target and credential variables), or none. */
  input: ConfigInput;
}

/** Refuses what a saved plan cannot take: other paths, and flags that only make sense for a config. */
function refuseConfigInputs(planArg: string, pathArgs: readonly string[], flags: SavedPlanFlags): void {
  if (pathArgs.length > 1) {
    const others = pathArgs.filter((p) => p !== planArg).join(', ');
    throw new CliError(
      `${planArg} is a saved plan, so apply takes no config path besides it (got ${others}); apply either the plan file or the config`,
    );
  }
  const given: string[] = [];
  if (flags.var.length > 0) given.push('--var');
  if (flags.varFile.length > 0) given.push('--var-file');
  if (flags.allEnvs) given.push('--all-envs');
  if (typeof flags.env === 'object' && flags.env.length > 1) given.push('several --env');
  if (given.length > 0) {
    throw new CliError(
      `${given.join(' and ')} cannot be used when applying a saved plan: ${planArg} already holds the values it was made with, so make the plan again with them instead`,
    );
  }
}

/** The state flags apply uses: the plan's own location unless the command line names a state. */
function stateFlagsFor(flags: StateFlags, recorded: StateLocation): StateFlags {
  const named =
    flags.state !== undefined ||
    flags.backend !== undefined ||
    flags.workspace !== undefined ||
    (flags.backendConfig?.length ?? 0) > 0;
  if (named) {
    // --backend file without --state means the plan's file, if it has one.
    return flags.state === undefined && (flags.backend ?? 'file') === 'file' && recorded.backend === 'file'
      ? { ...flags, state: recorded.path }
      : flags;
  }
  return recorded.backend === 'file'
    ? { ...flags, state: recorded.path }
    : {
        ...flags,
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
  targetFlags: { domain?: string; baseUrl?: string };
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
  flags: StateFlags,
  io: CommandIO,
  applied?: AppliedState,
): Promise<SealedPlan> {
  const planModule = await import('../plan/index.js');
  const envelope = planModule.openPlanFile(readFileSync(absolute(planArg, io), 'utf8'), planArg);
  const { stateFlags, configPath, scope } = applied
    ? {
        stateFlags: flags,
        configPath: applied.input.paths[applied.input.paths.length - 1] ?? '.',
        scope: await stateScopeOf(applied.input, applied.targetFlags, io),
      }
    : { stateFlags: stateFlagsFor(flags, envelope.stateLocation), configPath: planArg, scope: undefined };
  planModule.checkPlanLocation(
    envelope,
    await resolveStateLocation(stateFlags, configPath, io, scope),
    planArg,
  );
  const store = await openStore(stateFlags, configPath, io, scope);
  try {
    const key = await store.planKey({ create: false });
    return { saved: planModule.readPlanFile(envelope, key, store.planKeyWhere), store };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The --env environment of ./tenantform.yaml a saved plan is applied with (its target, credentials, state), or none. */
function environmentOf(flags: SavedPlanFlags, io: CommandIO): ConfigInput {
  const env = typeof flags.env === 'object' ? flags.env[0] : flags.env;
  if (env === undefined) return { env: null, paths: ['.'], varFiles: [] };
  return resolveInputs(['.'], env, [], io, 'one')[0]!;
}

/**
 * Reads the plan file and checks everything that can be checked without the
 * lock; returns the state store to lock and the function that checks the
 * plan again under the lock. Throws CliError or PlanError, having created
 * nothing and sent nothing.
 */
export async function openSavedPlan(
  planArg: string,
  pathArgs: readonly string[],
  flags: SavedPlanFlags,
  io: CommandIO,
): Promise<SavedPlanApply> {
  refuseConfigInputs(planArg, pathArgs, flags);
  const input = environmentOf(flags, io);
  // The target comes from the command line, the environment or tenantform.yaml; the plan only confirms it.
  const targetFlags = environmentTargetFlags({ domain: flags.domain, baseUrl: flags.baseUrl }, input);
  const { saved, store } = await openSealedPlan(planArg, environmentStateFlags(flags, input), io, {
    input,
    targetFlags,
  });
  try {
    const [planModule, api, { readStateSnapshot }] = await Promise.all([
      import('../plan/index.js'),
      import('../api/index.js'),
      import('../state/index.js'),
    ]);
    // Without --api the plan's own profile is used; another one is refused before anything else.
    const profile = flags.api ?? input.environment?.api;
    if (profile !== undefined) planModule.checkPlanProfile(saved, profile, planArg);
    const given = targetGiven(targetFlags, io.env) ? api.resolveTarget(targetFlags, io.env).baseUrl : null;
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
      targetFlags,
      input,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** A PlanError refusing a saved plan, as a CliError that exits EXIT_PLAN_REFUSED (nothing was sent). */
function refused(err: unknown): unknown {
  return err instanceof PlanError ? new CliError(err.message, EXIT_PLAN_REFUSED, err.code) : err;
}

/** Runs `fn` (reading or checking a saved plan), turning its refusal into EXIT_PLAN_REFUSED. */
export async function refusedPlanExit<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw refused(err);
  }
}

/** refusedPlanExit for the check under the lock. */
export function refusedPlanExitSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw refused(err);
  }
}
