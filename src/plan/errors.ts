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
  | 'PLAN_REPLACE_REFUSED';

/** A plan that cannot be made, read or applied, with a message a person can act on. */
export class PlanError extends Error {
  override readonly name = 'PlanError';

  constructor(
    message: string,
    readonly code: PlanErrorCode,
  ) {
    super(message);
  }
}
