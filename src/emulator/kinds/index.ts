/**
 * The emulator's kind modules, one per kind (kind.ts says what each
 * declares), in the order of src/resources KINDS: the only list the router,
 * the store, snapshots, seeds and the data file loop over. startEmulator
 * takes another list (option `kinds`) for a test's own kind.
 */
import type { EMULATOR_REFERENCES } from '../references/index.js';
import type { EmulatorKind } from './kind.js';
import { rateLimitPolicies } from './rate-limit-policy.js';
import { tokenExchangeProfiles } from './token-exchange-profile.js';
import { userPermissions } from './user-permission.js';

export const EMULATOR_KINDS = [rateLimitPolicies, userPermissions, tokenExchangeProfiles] as const;

type PartOf<M> = M extends EmulatorKind<string, infer P> ? P : never;

/**
 * Everything the emulated tenant holds, one part per kind module, and under
 * API profile full one per reference list module; what `--data` persists and
 * the admin API lists.
 */
export type EmulatorSnapshot = {
  [M in (typeof EMULATOR_KINDS)[number] as M['key']]: PartOf<M>;
} & {
  [M in (typeof EMULATOR_REFERENCES)[number] as M['key']]?: PartOf<M>;
};

export type { EmulatorKind, KindData, OperationInput, OperationResult, TenantContext } from './kind.js';
export { emulatorKind } from './kind.js';
