/** Stable codes of the errors the plan module throws; the CLI maps them to exit code 1. */
export type PlanErrorCode =
  | 'PLAN_INVALID'
  | 'PLAN_UNKNOWN_VERSION'
  | 'PLAN_STALE'
  | 'PLAN_DUPLICATE_ADDRESS'
  | 'PLAN_BLOCKED'
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
