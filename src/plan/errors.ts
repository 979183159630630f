import { plainText, type Wording } from '../resources/settings.js';

/** Stable codes of the errors the plan module throws; the CLI maps them to exit code 1. */
export type PlanErrorCode =
  | 'PLAN_INVALID'
  | 'PLAN_UNKNOWN_VERSION'
  | 'PLAN_STALE'
  | 'PLAN_DUPLICATE_ADDRESS'
  | 'PLAN_BLOCKED'
  /** A saved plan's changes disagree with the state or the schemas (see verifySavedPlan). */
  | 'PLAN_MISMATCH'
  /** A saved plan would be applied to another state or target than it was made for. */
  | 'PLAN_OTHER_STATE'
  | 'PLAN_OTHER_TARGET'
  | 'PLAN_OTHER_PROFILE'
  | 'PLAN_UNKNOWN_TARGET'
  | 'PLAN_REPLACE_REFUSED'
  /** A saved plan without a seal, or of a format version from before seals. */
  | 'PLAN_UNSEALED'
  /** A saved plan's seal does not match its content under its state's plan key: the file was edited. */
  | 'PLAN_TAMPERED'
  /** The state a saved plan names has no plan key to check its seal with. */
  | 'PLAN_KEY_MISSING'
  /** A saved plan names a target that no flag, environment variable or tenantform.yaml confirms. */
  | 'PLAN_TARGET_UNCONFIRMED';

/**
 * A plan that cannot be made, read or applied, with a message a person can
 * act on; a message that names settings keeps them as data (`wording`).
 */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  readonly wording?: Wording;

  constructor(
    message: string | Wording,
    readonly code: PlanErrorCode,
  ) {
    super(typeof message === 'string' ? message : plainText(message));
    if (typeof message !== 'string') this.wording = message;
  }
}
