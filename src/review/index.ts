/**
 * Review: what a configuration does to the tenant's applications, and what a
 * reviewer must look at before it is applied. Owns the meaning of a rate limit
 * policy (policy.ts: selectors, groups, enforcing actions), the documented
 * precedence (precedence.ts: which policy governs an application, and which
 * applications a policy governs), and the guardrails (rules.ts: named rules
 * with stable codes and severities; check-config.ts over a configuration,
 * check-changes.ts over a plan's changes; rule-words.ts their sentences).
 * Pure: no I/O; the applications come from the command line or from the
 * tenant, and the settings from tenantform.yaml, passed in as data.
 * Does not own: reading config (config/), deciding changes (plan/), printing (cli/).
 */
export {
  blocksEverything,
  CLIENT_PREFIX,
  DEFAULT_SELECTOR,
  groupOf,
  GROUPS,
  isEnforcing,
  limitOf,
  policiesOf,
  scopeOf,
  type Application,
  type GroupSelector,
  type PolicyEntry,
  type ResourceView,
  type SelectorScope,
} from './policy.js';
export {
  explainClients,
  reachOf,
  type ClientExplanation,
  type Counter,
  type Level,
  type PolicyReach,
  type ReachCounter,
} from './precedence.js';
export {
  DEFAULT_SETTINGS,
  isRuleCode,
  RULE_CODES,
  RULE_SETTINGS,
  ruleOf,
  RULES,
  severityOf,
  type Finding,
  type GuardrailSettings,
  type Rule,
  type RuleCode,
  type RuleSetting,
  type Severity,
  type Stage,
} from './rules.js';
export { checkConfig, hasAcceptedScheme, hostAllowed, reservedNamespace } from './check-config.js';
export { checkChanges, type ChangeView } from './check-changes.js';
export { findingMessage } from './rule-words.js';
export {
  isRisky,
  reviewChanges,
  type ChangeReview,
  type Effect,
  type PlanView,
  type Risk,
} from './effects.js';
export { changeDoes, changeLabel, changeWords, effectWords, type NameOf } from './change-words.js';
