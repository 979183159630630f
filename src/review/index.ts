/**
 * Review: what a configuration does to the tenant's applications, and what a
 * reviewer must look at before it is applied. Owns the meaning of a rate limit
 * policy (policy.ts: selectors, groups, enforcing actions), the documented
 * precedence (precedence.ts: which policy governs an application, and which
 * applications a policy governs). Pure: no I/O; the applications come from
 * the command line or from the tenant, passed in as data.
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
