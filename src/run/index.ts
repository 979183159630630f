/**
 * The run layer: a command as a typed request (requests.ts, read-requests.ts), parsed and
 * checked once by src/cli, and what runs it below the command line: the
 * state store the request names (state-store.ts, state-location.ts), the one
 * API client of a run (connection.ts, confirmed-tenant.ts). It speaks of
 * settings, never of flags: its problems are RunErrors with data
 * (errors.ts), and its notices data (RunNotice), which src/cli words.
 * It may import every folder below the CLI; nothing but src/cli imports it.
 */
export type {
  ApplyRequest,
  ChangeSource,
  ConfigInput,
  ConnectionRequest,
  Pacing,
  PlanRequest,
  RefreshRequest,
  RunIO,
  RunNotice,
  Selection,
  StateRequest,
  TargetRequest,
} from './requests.js';
export type {
  AppliedResult,
  PlanReview,
  RescueOutcome as RescueFileOutcome,
  RunEvent,
  RunFigures,
  RunView,
  WhereTarget,
} from './view.js';
export { runApply, type ApplyRunResult } from './apply.js';
export { runPlan, type PlanMaker, type PlanResult } from './plan.js';
export { runRefresh, type RefreshResult } from './refresh.js';
export type {
  ExplainRequest,
  ExportRequest,
  ExportSourceRequest,
  ImportHow,
  ImportRequest,
  SimulateRequest,
  TenantReader,
  ValidateRequest,
  VarsOrProblem,
} from './read-requests.js';
export { RunError, type RunProblem, type RunProblemCode } from './errors.js';
export { explainReport, findPolicy, runExplain, type ExplainReport, type ExplainResult } from './explain.js';
export {
  readLogs,
  runSimulate,
  type LogReader,
  type ReadLimits,
  type ReadSummary,
  type SimulateResult,
} from './simulate.js';
export {
  absolute,
  environmentState,
  environmentTarget,
  openInputStore,
  openStore,
  resolveStateLocation,
  stateScopeOf,
  storeLocation,
  targetGiven,
} from './state-store.js';
export { locateDefaultState, NO_SCOPE, scopeDirectory, type StateScope } from './state-location.js';
export { checkTargetConfirmed, ALLOWED_HOSTS_VARIABLE } from './confirmed-tenant.js';
export {
  ApiConnection,
  environmentCredentials,
  openClient,
  readTarget,
  type ConnectionSettings,
  type WaitSink,
} from './connection.js';
export type {
  EmulatorRequest,
  EnvsRequest,
  FmtRequest,
  ForceUnlockRequest,
  InitRequest,
  LocatedState,
  ShowRequest,
  StateListRequest,
  StateMigrateRequest,
  StateRepairRequest,
  StateRescueRequest,
  StateRmRequest,
  StateShowRequest,
} from './local-requests.js';
export {
  affectedEnvironments,
  listEnvironments,
  migrateStates,
  readLocatedState,
  startEmulators,
  withLocatedStore,
  writeScaffold,
  type InitOutcome,
  type ScaffoldFile,
  type StartedEmulator,
} from './local-runs.js';
export { runValidate, type LiveReferences, type Validation, type ValidateResult } from './validate.js';
export { runImport, type ImportResult } from './import.js';
export {
  checkExportTarget,
  runExport,
  type ExportEvent,
  type ExportOrigin,
  type ExportResult,
  type ExportSource,
  type ExportView,
} from './export.js';
