/**
 * The rules of stage `plan`: what only a change shows, because it needs the
 * value recorded in the state (or read from the tenant under --refresh).
 * Run by plan and apply after planning, before anything is written.
 */
import { rateLimitPolicy, type Attributes, type SourcePosition } from '../resources/index.js';
import type { RateLimitPolicyConfiguration } from '../schemas/types.js';
import { isEnforcing, limitOf } from './policy.js';
import { settle, type Finding, type GuardrailSettings } from './rules.js';

/** A plan change as the rules read it (src/plan's Change fits). */
export interface ChangeView {
  kind: string;
  address: string;
  action: string;
  before: Attributes | null;
  after: Attributes | null;
  source: SourcePosition | null;
}

type Found = Omit<Finding, 'severity'>;

/** The actions after which `after` is what the tenant has. */
const LANDS = new Set(['create', 'update', 'replace']);

function configurationOf(attributes: Attributes | null): RateLimitPolicyConfiguration | null {
  return attributes ? (attributes.configuration as RateLimitPolicyConfiguration) : null;
}

function ruleFindings(change: ChangeView): Found[] {
  const before = configurationOf(change.before);
  const after = configurationOf(change.after);
  if (!after || !LANDS.has(change.action)) return [];
  const at = { address: change.address, source: change.source };
  const selector = String(change.after!.consumer_selector);
  const out: Found[] = [];
  if (isEnforcing(after) && !isEnforcing(before) && before?.action !== 'log') {
    out.push({
      rule: 'enforce-without-log',
      ...at,
      params: {
        selector,
        action: after.action,
        limit: limitOf(after) ?? 0,
        from: before ? before.action : 'none',
      },
    });
  }
  const was = limitOf(before);
  const now = limitOf(after);
  if (was !== null && now !== null && now * 2 < was) {
    out.push({ rule: 'limit-cut', ...at, params: { selector, from: was, to: now } });
  }
  return out;
}

/**
 * The findings of the `plan` rules over a plan's changes, at the severities
 * the settings give them, in the order of the changes.
 */
export function checkChanges(changes: readonly ChangeView[], settings: GuardrailSettings): Finding[] {
  return settle(changes.filter((c) => c.kind === rateLimitPolicy.name).flatMap(ruleFindings), settings);
}
