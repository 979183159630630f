/**
 * What a change does, beyond its values: for a rate limit policy, whom it
 * starts or stops turning away, how the requests it governs are counted, and
 * where its applications go when it is removed (or come from when it is
 * created), by the documented precedence over the policies before and after
 * the plan. Data only (codes and values); words.ts and change-words.ts write
 * the sentences when a plan is shown. And which changes a reviewer must look
 * at first: the risky ones.
 */
import type { RateLimitPolicyConfiguration } from '../schemas/types.js';
import { rateLimitPolicy } from '../resources/index.js';
import type { ChangeView } from './check-changes.js';
import {
  blocksEverything,
  isEnforcing,
  limitOf,
  policiesOf,
  scopeOf,
  type PolicyEntry,
  type ResourceView,
  type SelectorScope,
} from './policy.js';
import { governingPolicy } from './precedence.js';
import type { Finding } from './rules.js';

/** What one change to a rate limit policy does. */
export type Effect =
  /** From now on every request of the applications it governs is turned away (an enforcing action at limit 0). */
  | { code: 'blocks-every-request'; scope: SelectorScope }
  /** It turns requests away from now on, at `limit`: created enforcing (`from: none`), or moved from log or allow. */
  | { code: 'starts-enforcing'; from: 'none' | 'log' | 'allow'; action: 'block' | 'redirect'; limit: number }
  /** It no longer turns requests away: now log (counts, never blocks) or allow (no limit). */
  | { code: 'stops-enforcing'; to: 'log' | 'allow' }
  /** Its limit is cut to under half. */
  | { code: 'limit-cut'; from: number; to: number }
  /** Its limit changes otherwise, the action staying the same (`from` and `to` in requests per second). */
  | { code: 'limit-change'; from: number; to: number }
  /** How the requests it governs are counted: one counter for the whole group, or one per application (default). */
  | { code: 'counter'; scope: SelectorScope }
  /** Removed: the applications it governed fall to this policy (null: none, only the tenant's own limit). */
  | { code: 'falls-back'; scope: SelectorScope; to: PolicyEntry | null }
  /** Created: the applications it governs leave this policy (null: none governed them). */
  | { code: 'takes-over'; scope: SelectorScope; from: PolicyEntry | null }
  /** What it would have done to the traffic of the tenant's logs (plan --simulate). */
  | { code: 'simulated'; evidence: SimulatedEvidence };

/**
 * What a policy would have done to the requests of the tenant's logs, as
 * `simulate` worked it out (src/simulate), for the plan's review.
 */
export interface SimulatedEvidence {
  /** The window the logs covered, seconds since the epoch; null when they held no request. */
  from: number | null;
  to: number | null;
  /** Requests of the applications it governs. */
  requests: number;
  /** The busiest second of its counter (of the busiest application, under default). */
  peak: number;
  secondsOver: number;
  /** Requests over the limit under block or redirect. */
  turnedAway: number;
  /** Requests over the limit under log. */
  logged: number;
  /** The applications whose requests it would have limited, most first (names as printable text). */
  limited: readonly string[];
}

/** Why a change is listed first for review. */
export type Risk = 'blocks-every-request' | 'starts-enforcing' | 'limit-cut' | 'finding';

/** What the review says about one change. */
export interface ChangeReview {
  effects: Effect[];
  /** Empty for a change that needs no special attention. */
  risks: Risk[];
  /** The plan's findings about this change's resource. */
  findings: Finding[];
}

/** A plan as the review reads it (src/plan's Plan fits). */
export interface PlanView {
  changes: readonly (ChangeView & { identity: readonly string[] })[];
  findings?: readonly Finding[];
  /** Present on a partial plan (--target): the other policies are not in it, so no precedence is worked out. */
  targets?: readonly string[];
  /** plan --simulate: the evidence of each changed policy, by address. */
  simulated?: Readonly<Record<string, SimulatedEvidence>>;
}

function configurationOf(attributes: ChangeView['before']): RateLimitPolicyConfiguration | null {
  return attributes ? (attributes.configuration as RateLimitPolicyConfiguration) : null;
}

/** The policies in force before and after the plan. */
interface Sides {
  before: PolicyEntry[];
  after: PolicyEntry[];
}

/**
 * The policies as the changes leave them on one side: each view made as
 * policiesOf reads it, so that none outlives it (a list of them all would,
 * for a plan of 100,000 changes, outlive the young generation).
 */
function* sideViews(changes: PlanView['changes'], side: keyof Sides): Generator<ResourceView> {
  for (const c of changes) {
    if (c.kind !== rateLimitPolicy.name) continue;
    // Blocked and forgotten changes leave the tenant as it is; a delete removes.
    const attributes =
      side === 'before'
        ? c.before
        : c.action === 'delete'
          ? null
          : c.action === 'blocked' || c.action === 'forget'
            ? c.before
            : c.after;
    if (attributes) yield { kind: c.kind, address: c.address, source: c.source, attributes };
  }
}

function sidesOf(changes: PlanView['changes']): Sides {
  return { before: policiesOf(sideViews(changes, 'before')), after: policiesOf(sideViews(changes, 'after')) };
}

/** The policy that governs a scope's applications once its own policy is gone (or before it existed). */
function governingWithout(scope: SelectorScope, policies: readonly PolicyEntry[]): PolicyEntry | null {
  switch (scope.level) {
    case 'client':
      return governingPolicy(policies, scope.clientId);
    case 'group':
      return policies.find((p) => p.scope.level === 'default') ?? null;
    case 'default':
      return null;
  }
}

/**
 * Whom a configuration starts or stops turning away, and a large cut. One
 * that blocks every request says only that: it also starts enforcing, and
 * cuts the limit to nothing.
 */
function enforcingEffects(
  before: RateLimitPolicyConfiguration | null,
  after: RateLimitPolicyConfiguration,
  scope: SelectorScope,
): Effect[] {
  if (blocksEverything(after)) {
    return blocksEverything(before) ? [] : [{ code: 'blocks-every-request', scope }];
  }
  const out: Effect[] = [];
  if (isEnforcing(after) && !isEnforcing(before)) {
    const from = before === null ? 'none' : before.action === 'log' ? 'log' : 'allow';
    out.push({
      code: 'starts-enforcing',
      from,
      action: after.action as 'block' | 'redirect',
      limit: limitOf(after) ?? 0,
    });
  }
  if (isEnforcing(before) && !isEnforcing(after)) {
    out.push({ code: 'stops-enforcing', to: after.action === 'log' ? 'log' : 'allow' });
  }
  const was = limitOf(before);
  const now = limitOf(after);
  if (was !== null && now !== null && now * 2 < was) out.push({ code: 'limit-cut', from: was, to: now });
  else if (was !== null && now !== null && was !== now && before?.action === after.action) {
    out.push({ code: 'limit-change', from: was, to: now });
  }
  return out;
}

/** What the removed policy's applications fall to, and what that starts. */
function removalEffects(
  before: RateLimitPolicyConfiguration | null,
  scope: SelectorScope,
  sides: Sides | null,
): Effect[] {
  if (!sides) return [];
  const to = governingWithout(scope, sides.after);
  const out: Effect[] = [{ code: 'falls-back', scope, to }];
  if (to)
    out.push(
      ...enforcingEffects(before, to.configuration, scope).filter(
        (e) => e.code !== 'limit-cut' && e.code !== 'limit-change',
      ),
    );
  return out;
}

function policyEffects(change: ChangeView, sides: Sides | null): Effect[] {
  const { action } = change;
  if (action !== 'delete' && action !== 'create' && action !== 'update' && action !== 'replace') return [];
  const attributes = change.after ?? change.before;
  const scope = attributes ? scopeOf(String(attributes.consumer_selector)) : null;
  if (!scope) return [];
  const before = configurationOf(change.before);
  const after = configurationOf(change.after);
  switch (change.action) {
    case 'delete':
      return removalEffects(before, scope, sides);
    case 'create':
    case 'update':
    case 'replace': {
      const out = enforcingEffects(before, after!, scope);
      if (scope.level !== 'client') out.push({ code: 'counter', scope });
      // A new default takes over nothing: without it, nothing governed the applications it now does.
      if (change.action === 'create' && sides && scope.level !== 'default') {
        out.push({ code: 'takes-over', scope, from: governingWithout(scope, sides.before) });
      }
      return out;
    }
    default:
      return [];
  }
}

const RISKY: readonly Risk[] = ['blocks-every-request', 'starts-enforcing', 'limit-cut'];

/** The review of a change with no effects and no findings (shared: never mutate a review). */
const NONE: ChangeReview = Object.freeze({
  effects: Object.freeze([]) as unknown as Effect[],
  risks: Object.freeze([]) as unknown as Risk[],
  findings: Object.freeze([]) as unknown as Finding[],
});

/** True for the effects that make a change risky: blocking every request, starting to enforce, a large limit cut. */
export function isRisky(effect: Effect): boolean {
  return (RISKY as readonly string[]).includes(effect.code);
}

/**
 * The review of every change of a plan, in the plan's order: effects (rate
 * limit policies), findings (the plan's, by address) and risks — a change
 * is risky when it starts turning requests away, blocks every request, cuts
 * a limit to under half, or a guardrail found something about it.
 */
export function reviewChanges(plan: PlanView): ChangeReview[] {
  const sides = plan.targets ? null : sidesOf(plan.changes);
  const findings = new Map<Finding['address'], Finding[]>();
  for (const f of plan.findings ?? []) {
    const same = findings.get(f.address);
    if (same) same.push(f);
    else findings.set(f.address, [f]);
  }
  // Most changes of a large plan have nothing to say: they share one empty review.
  return plan.changes.map((change) => {
    const own = change.kind === rateLimitPolicy.name ? policyEffects(change, sides) : NONE.effects;
    const evidence = change.action === 'no-op' ? undefined : plan.simulated?.[change.address];
    const effects: Effect[] = evidence ? [...own, { code: 'simulated', evidence }] : own;
    const mine = change.action === 'no-op' ? undefined : findings.get(change.address);
    if (effects.length === 0 && mine === undefined) return NONE;
    const risks = RISKY.filter((risk) => effects.some((e) => e.code === risk));
    if (mine !== undefined) risks.push('finding');
    return { effects, risks, findings: mine ? [...mine] : [] };
  });
}
