/**
 * Apply: executes a Plan against the API. Owns ordering (delete before create
 * for replacements), batching (permissions per user), concurrency and the
 * handling of expected conflicts (409 = already present, 404 = already gone).
 * Does not own: deciding what to change (plan/), HTTP details, retries and
 * pacing (api/), or how records are stored (state/).
 */
export { applyPlan, countRequests, offlineClient } from './executor.js';
export { UnrecordedError } from './tasks.js';
export type {
  Adoption,
  ApplyEvent,
  ApplyFailure,
  ApplyOptions,
  ApplyResult,
  ExecutorClient,
  Outcome,
  RecordEntry,
  Recorder,
  UnrecordedOperation,
} from './types.js';
