/**
 * What plan and apply act on, said before anything else: the state's location
 * and the API target. Two runs whose paths differ only in order can use two
 * different states; these lines make that visible.
 */
import { describeStore } from '../run/tenant-binding.js';
import type { CommandIO } from './io.js';
import type { StateStore } from '../state/types.js';

/** The API target settings a command was given. */
export interface TargetSettings {
  domain?: string;
  baseUrl?: string;
  audience?: string;
}

/** True when a flag or an environment variable names an API target (valid or not). */
export { targetGiven } from '../run/state-store.js';

/** The store's description, with a file path shown relative to the working directory when inside it. */
export function describeState(store: StateStore, io: Pick<CommandIO, 'cwd'>): string {
  return describeStore(store, io.cwd);
}

/** "State:  …" and "Target: …" lines, ending with a blank line. */
export function whereLines(state: string, target: string): string {
  return `State:  ${state}\nTarget: ${target}\n\n`;
}

/** Said when the state does not exist yet and the plan creates resources: all of them are new. */
export function noStateWarning(state: string): string {
  return (
    `Warning: no state at ${state} yet, so every resource is planned as new. If this configuration ` +
    'was applied before, its state is elsewhere (the default state is in .tenantform/ beside the last config ' +
    'path, one per environment or target: check the paths and their order, the target, --env, --state, ' +
    '--backend and --workspace).\n\n'
  );
}
