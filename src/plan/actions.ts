import type { ApiProfile } from '../resources/index.js';
import type { PlanChangeDocument, PlanDocument } from '../schemas/index.js';

/**
 * The closed set of plan actions. The list itself is schemas/plan.schema.json's
 * `action` enum (its generated type is `Action`); everything else about an
 * action lives in ACTION_INFO, which must name every action, so a new action in
 * the schema fails the type-check until it says how it is counted, shown and
 * applied. Renderers switch over `Action` exhaustively (see assertNever).
 *
 * - create: POST it.
 * - update: PATCH it by id: the same resource, changed in place (API profile full).
 * - delete: DELETE it by id (permissions: DELETE a batch per user, API profile full).
 * - replace: DELETE by id, then POST (the resource is absent in between).
 * - forget: stop tracking it; the API profile has no delete for the kind, so it stays on the tenant.
 * - blocked: a needed change no operation can make; never applied.
 * - no-op: desired and recorded agree.
 */
export type Action = PlanChangeDocument['action'];

/** Per-action counts, keyed as in the plan file's `summary` (format 3: every key present). */
export type PlanSummary = Required<PlanDocument['summary']>;

export interface ActionInfo {
  /** The action's counter in PlanSummary. */
  summaryKey: keyof PlanSummary;
  /** Words after the count in the summary line ("2 to create"); null: not listed there. */
  summaryWords: string | null;
  /** Listed in the summary line only for plans of this profile (the only one that has the action). */
  summaryProfile?: ApiProfile;
  /** Symbol in text and markdown output. */
  symbol: string;
  /** Meaning in the legend. */
  meaning: string;
  /** Position in the legend. */
  legendRank: number;
  /** Apply performs it (blocked and no-op changes are never sent). */
  applied: boolean;
}

/** Every action, in the order of the summary line and the plan file's summary. */
export const ACTION_INFO: { readonly [A in Action]: ActionInfo } = {
  create: {
    summaryKey: 'create',
    summaryWords: 'to create',
    symbol: '+',
    meaning: 'create',
    legendRank: 0,
    applied: true,
  },
  update: {
    summaryKey: 'update',
    summaryWords: 'to update',
    summaryProfile: 'full',
    symbol: '~',
    meaning: 'update in place',
    legendRank: 0.5,
    applied: true,
  },
  replace: {
    summaryKey: 'replace',
    summaryWords: 'to replace',
    symbol: '-/+',
    meaning: 'replace (delete, then create)',
    legendRank: 2,
    applied: true,
  },
  delete: {
    summaryKey: 'delete',
    summaryWords: 'to delete',
    symbol: '-',
    meaning: 'delete',
    legendRank: 1,
    applied: true,
  },
  forget: {
    summaryKey: 'forget',
    summaryWords: 'to forget',
    symbol: '.',
    meaning: 'forget (stop tracking; it stays on the tenant)',
    legendRank: 3,
    applied: true,
  },
  blocked: {
    summaryKey: 'blocked',
    summaryWords: 'blocked',
    symbol: '!',
    meaning: 'blocked (cannot be applied)',
    legendRank: 4,
    applied: false,
  },
  'no-op': {
    summaryKey: 'no_op',
    summaryWords: null,
    symbol: '=',
    meaning: 'unchanged',
    legendRank: 5,
    applied: false,
  },
};

/** The actions in summary order. */
export const ACTIONS = Object.keys(ACTION_INFO) as Action[];

/** The summary keys in the plan file's order. */
export const SUMMARY_KEYS: readonly (keyof PlanSummary)[] = ACTIONS.map((a) => ACTION_INFO[a].summaryKey);

/** A summary with every count at zero. */
export function emptySummary(): PlanSummary {
  return Object.fromEntries(SUMMARY_KEYS.map((key) => [key, 0])) as PlanSummary;
}

/** For the default branch of an exhaustive switch: a new action not handled fails the type-check. */
export function assertNever(value: never): never {
  throw new Error(`internal: unhandled value ${JSON.stringify(value)}`);
}
