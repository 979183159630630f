/**
 * `apply PLANFILE`: whether a saved plan may be applied, decided before any
 * state directory, lock or request. One plan file and no config flags; the
 * state it was made from (location, lineage, serial) and nothing else; the
 * target it was made for; and every change checked against that state and
 * the schemas (verifySavedPlan), so that an edited file cannot make apply do
 * something other than what it shows.
 */
import { readFileSync } from 'node:fs';
import type { Plan } from '../plan/index.js';
import type { StateDocument, StateLocation, StateStore } from '../state/index.js';
import { absolute, openStore, resolveStateLocation, type StateFlags } from './context.js';
import { CliError, type CommandIO } from './io.js';
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
  /** --domain / --base-url, with the plan's target filled in when neither they nor the environment give one. */
  targetFlags: { domain?: string; baseUrl?: string };
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
  if (flags.env !== undefined && flags.env.length > 0) given.push('--env');
  if (flags.allEnvs) given.push('--all-envs');
  if (given.length > 0) {
    throw new CliError(
      `${given.join(' and ')} cannot be used when applying a saved plan: ${planArg} already holds the values it was made with, so make the plan again with them instead`,
    );
  }
}

/** The state flags apply uses: the plan's own location unless the command line names a state. */
function stateFlagsFor(flags: SavedPlanFlags, recorded: StateLocation): StateFlags {
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
  const [planModule, api, { readStateSnapshot }] = await Promise.all([
    import('../plan/index.js'),
    import('../api/index.js'),
    import('../state/index.js'),
  ]);
  const saved = planModule.readPlanFile(readFileSync(absolute(planArg, io), 'utf8'), planArg);
  // Without --api the plan's own profile is used; another one is refused before anything else.
  if (flags.api !== undefined) planModule.checkPlanProfile(saved, flags.api, planArg);

  const recorded = saved.stateLocation;
  const stateFlags = recorded ? stateFlagsFor(flags, recorded) : flags;
  planModule.checkPlanLocation(saved, await resolveStateLocation(stateFlags, planArg, io), planArg);

  let targetFlags: { domain?: string; baseUrl?: string } = { domain: flags.domain, baseUrl: flags.baseUrl };
  if (targetGiven(targetFlags, io.env)) {
    planModule.checkPlanTarget(saved, api.resolveTarget(targetFlags, io.env).baseUrl, planArg);
  } else if (saved.target !== null) {
    targetFlags = { baseUrl: saved.target }; // no target given: the plan's own
  }

  const check = (doc: StateDocument | null): Plan => {
    planModule.checkPlanIsCurrent(saved.plan, doc);
    return planModule.verifySavedPlan(saved.plan, doc, planArg);
  };
  const store = await openStore(stateFlags, planArg, io);
  try {
    check(await readStateSnapshot(store));
  } catch (err) {
    await store.close();
    throw err;
  }
  return {
    store,
    // A state never written (serial 0) is the same as no state at plan time.
    planFor: (doc) => check(doc.serial === 0 ? null : doc),
    targetFlags,
  };
}
