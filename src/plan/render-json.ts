import { kindOf, plainName, type SettingNames } from '../resources/index.js';
import { SUMMARY_KEYS } from './actions.js';
import { canonicalize } from './canonical.js';
import type { StateLocation } from '../state/types.js';
import type { Drift } from './drift.js';
import { namedReferences } from './names.js';
import { reasonText } from './reasons.js';
import type { Change, Plan } from './types.js';
import { changeLabel, reviewChanges, type ChangeReview, type Effect, type Finding } from '../review/index.js';

/** Extra top-level fields of a saved plan file, written before `state`. */
export interface PlanJsonMeta {
  created_at: string;
  tool_version: string;
  config_paths?: string[];
  state_location?: StateLocation;
  target?: string | null;
}

/** One change as plan JSON writes it (schemas/plan.schema.json's change); `names` names the settings its reason names. */
export function changeJson(change: Change, names: SettingNames = plainName): Record<string, unknown> {
  const first = kindOf(change.kind).identityFields;
  return {
    address: change.address,
    kind: change.kind,
    identity: change.identity,
    action: change.action,
    id: change.id,
    adopted: change.adopted,
    reason: reasonText(change, names),
    source: change.source
      ? { file: change.source.file, line: change.source.line, col: change.source.col }
      : null,
    before: change.before === null ? null : canonicalize(change.before, first),
    after: change.after === null ? null : canonicalize(change.after, first),
  };
}

function driftJson(d: Drift): Record<string, unknown> {
  const first = kindOf(d.kind).identityFields;
  return {
    address: d.address,
    kind: d.kind,
    identity: d.identity,
    drift: d.drift,
    id: d.id,
    recorded: d.recorded === null ? null : canonicalize(d.recorded, first),
    live: d.live === null ? null : canonicalize(d.live, first),
    fields: d.fields,
    desired: d.desired,
  };
}

function findingJson(f: Finding): Record<string, unknown> {
  const s = f.source;
  return {
    rule: f.rule,
    severity: f.severity,
    address: f.address,
    source: s ? { file: s.file, line: s.line, col: s.col } : null,
    params: { ...f.params },
  };
}

/** The plan as a JSON-ready object with a fixed key order (matches schemas/plan.schema.json). */
export function planToJson(
  plan: Plan,
  meta?: PlanJsonMeta,
  names: SettingNames = plainName,
): Record<string, unknown> {
  return {
    format_version: plan.format_version,
    api: plan.api,
    ...(meta
      ? {
          created_at: meta.created_at,
          tool_version: meta.tool_version,
          ...(meta.config_paths ? { config_paths: meta.config_paths } : {}),
          ...(meta.state_location ? { state_location: meta.state_location } : {}),
          ...(meta.target !== undefined ? { target: meta.target } : {}),
        }
      : {}),
    state: { lineage: plan.state.lineage, serial: plan.state.serial },
    ...(plan.targets ? { targets: [...plan.targets] } : {}),
    ...(plan.destroy ? { destroy: true } : {}),
    summary: Object.fromEntries(SUMMARY_KEYS.map((key) => [key, plan.summary[key]])),
    changes: plan.changes.map((change) => changeJson(change, names)),
    ...(plan.drift ? { drift: plan.drift.map(driftJson) } : {}),
    ...(plan.findings ? { findings: plan.findings.map(findingJson) } : {}),
    ...(plan.names ? { names: plan.names } : {}),
  };
}

/** An effect as data: its code and values, a policy named by its selector. */
function effectJson(effect: Effect): Record<string, unknown> {
  switch (effect.code) {
    case 'blocks-every-request':
      return { code: effect.code };
    case 'starts-enforcing':
      return { code: effect.code, from: effect.from, action: effect.action, limit: effect.limit };
    case 'stops-enforcing':
      return { code: effect.code, to: effect.to };
    case 'limit-cut':
    case 'limit-change':
      return { code: effect.code, from: effect.from, to: effect.to };
    case 'counter':
      return { code: effect.code, counter: effect.scope.level === 'group' ? 'shared' : 'per-application' };
    case 'falls-back':
      return { code: effect.code, to: effect.to?.selector ?? null };
    case 'takes-over':
      return { code: effect.code, from: effect.from?.selector ?? null };
    case 'simulated': {
      const e = effect.evidence;
      const at = (s: number | null) => (s === null ? null : new Date(s * 1000).toISOString());
      return {
        code: effect.code,
        from: at(e.from),
        to: at(e.to),
        requests: e.requests,
        peak: e.peak,
        seconds_over: e.secondsOver,
        turned_away: e.turnedAway,
        logged: e.logged,
      };
    }
  }
}

function reviewJson(change: Change, review: ChangeReview, names: Plan['names']): Record<string, unknown> {
  const named = namedReferences(change, names);
  return {
    label: changeLabel(change),
    ...(named.length > 0 ? { names: named } : {}),
    risky: review.risks.length > 0,
    risks: review.risks,
    effects: review.effects.map(effectJson),
    findings: review.findings.map((f) => f.rule),
  };
}

/**
 * The plan as pretty JSON (two-space indent, no trailing newline), keys in a
 * stable order: the output of `tenantform plan --format json`. Each change
 * also carries its `review` (short name, risky and why, effects, the codes of
 * the guardrails' findings), worked out here: a saved plan does not hold it.
 */
export function renderJson(plan: Plan, names: SettingNames = plainName): string {
  const doc = planToJson(plan, undefined, names);
  const reviews = reviewChanges(plan);
  const changes = (doc.changes as Record<string, unknown>[]).map((c, i) => ({
    ...c,
    review: reviewJson(plan.changes[i]!, reviews[i]!, plan.names),
  }));
  return JSON.stringify({ ...doc, changes }, null, 2);
}
