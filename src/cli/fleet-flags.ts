/**
 * What tells a multi-environment run from a one-environment one, apart from
 * fleet.ts so that the command table (main.ts) decides without loading it:
 * a plan or apply of one environment never loads the fleet's modules.
 */
import type { ApplyFlags, PlanFlags } from './definitions.js';
import type { CommandIO } from './io.js';
import type { EnvSelection } from './inputs.js';

/**
 * The flags a multi-environment run reads, as plan and apply define them
 * (definitions.ts): what picks the environments, and what names one state,
 * target or file (refused with several environments).
 */
export type FleetFlags = Pick<PlanFlags, 'varFile'> &
  Partial<Pick<PlanFlags, 'envParallelism' | 'state' | 'workspace' | 'out' | 'format' | 'detailedExitcode'>> &
  Partial<Pick<ApplyFlags, 'domain' | 'baseUrl' | 'tokenFile'>> & {
    env?: EnvSelection;
    allEnvs?: boolean;
  };

/** A one-environment action: plan's, apply's or destroy's. */
export type SingleRun<F> = (paths: string[], flags: F, cmd: unknown, io: CommandIO) => Promise<number>;

/** True when the flags ask for more than one environment (or all of them). */
export function isFleetRun(flags: Pick<FleetFlags, 'env' | 'allEnvs'>): boolean {
  return flags.allEnvs === true || (Array.isArray(flags.env) && new Set(flags.env).size > 1);
}
