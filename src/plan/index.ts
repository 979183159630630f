/**
 * Plan: decides what apply must do (planChanges, pure), and shows it (text,
 * markdown, JSON, Terraform-shaped JSON), saves it and reads it back (plan files, staleness check).
 * Owns: actions, reasons (codes with data, worded when rendered), plan file format, rendering. Does not own: reading
 * config (config/), storing state (state/), or doing the work (apply/).
 */
export type { Action, Change, Plan, PlanReason, PlanSummary, ReasonCode } from './types.js';
export { PLAN_FORMAT_VERSION } from './types.js';
export { ACTION_INFO, ACTIONS, assertNever, type ActionInfo } from './actions.js';
export { PlanError, type PlanErrorCode } from './errors.js';
export { applicableChanges, hasChanges, planChanges, summarize, updatedAttributes } from './planner.js';
export {
  planRefreshed,
  refreshState,
  type Drift,
  type DriftKind,
  type Refresh,
  type RefreshEntry,
} from './drift.js';
export { renderDriftText } from './render-drift.js';
export { checkReferences, nearMiss, referenceQueries, type ReferenceProblem } from './references.js';
export { planProblems } from './plan-check.js';
export { verifySavedPlan } from './plan-verify.js';
export {
  checkPlanIsCurrent,
  checkPlanLocation,
  checkPlanProfile,
  checkPlanTarget,
  openPlanFile,
  parsePlanFile,
  readPlanFile,
  serializePlan,
  type PlanEnvelope,
  type PlanFileMeta,
  type SavedPlan,
} from './plan-file.js';
export { canonicalJson, type PlanSeal } from './plan-seal.js';
export { shouldUseColor } from './color.js';
export { changedPaths, deepEqual } from './canonical.js';
export { adoptedWords, reasonText } from './reasons.js';
export { renderText, renderTextChunks, type TextOptions } from './render-text.js';
export { COMPACT_ABOVE } from './render-compact.js';
export { codeCell, escapeCell, MARKDOWN_LIMIT, renderMarkdown } from './render-markdown.js';
export { planToJson, renderJson } from './render-json.js';
export {
  renderTerraformJson,
  terraformActions,
  TERRAFORM_JSON_FORMAT_VERSION,
  TERRAFORM_RELEASE,
  type TerraformJsonMade,
} from './render-terraform-json.js';
export { summaryLine, NO_CHANGES } from './wording.js';
export { namesOf, namesNote, namedLabel, labelParts } from './names.js';
export { tenantText } from './tenant-text.js';
export { renderStateMarkdown, renderStateText } from './render-state.js';
export { closestMatch, type PlanOptions } from './selection.js';
