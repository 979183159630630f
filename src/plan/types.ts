import type { Attributes, KindName, SourcePosition } from '../resources/index.js';

export const PLAN_FORMAT_VERSION = 1;

/**
 * What apply will do to one resource. Apply decides from `action` alone;
 * `reason` only explains the plan to a person.
 * - create: POST it.
 * - delete: DELETE it by id.
 * - replace: DELETE by id, then POST (the resource is absent in between).
 * - forget: stop tracking it; the kind has no delete, so it stays on the tenant.
 * - blocked: a needed change no operation can make; never applied.
 * - no-op: desired and recorded agree.
 */
export type Action = 'create' | 'delete' | 'replace' | 'forget' | 'blocked' | 'no-op';

export interface Change {
  address: string;
  kind: KindName;
  identity: string[];
  action: Action;
  /** Recorded attributes (null when nothing is recorded). */
  before: Attributes | null;
  /** Desired attributes (null when not desired). */
  after: Attributes | null;
  /** Recorded server id, needed by delete and replace; null when unknown or the kind has none. */
  id: string | null;
  /** The recorded resource was adopted through 409 (its settings were never verified). */
  adopted: boolean;
  reason: string;
  /** Where the desired resource is declared; null for removals. */
  source: SourcePosition | null;
}

export interface PlanSummary {
  create: number;
  replace: number;
  delete: number;
  forget: number;
  blocked: number;
  no_op: number;
}

/** A plan: plain data, saved as JSON (schemas/plan.schema.json), applied exactly. */
export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  /** The state the plan was made from; apply refuses a saved plan when these changed. null lineage = no state yet. */
  state: { lineage: string | null; serial: number };
  /** Every resource, in deterministic order (kind order, then address), no-ops included. */
  changes: Change[];
  summary: PlanSummary;
}
