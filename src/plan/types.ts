import type { ApiProfile, Attributes, KindName, SourcePosition } from '../resources/index.js';
import type { Action, PlanSummary } from './actions.js';
import type { Finding, SimulatedEvidence } from '../review/index.js';

/**
 * Drift: what changed on the tenant behind tenantform's back, found by
 * comparing the state with a read of the tenant (API profile full). Pure: the
 * read happens elsewhere (src/api, wired by src/cli) and arrives as a
 * LiveSnapshot.
 *
 * - changed: recorded and live, with other settings (or another id) on the tenant;
 * - deleted: recorded, and the list that would hold it was read without it;
 * - unmanaged: live but not recorded. Left alone, unless the config declares
 *   the same identity: then the state records it (id and live settings) and
 *   the plan makes it match the config instead of creating a duplicate.
 */
export type DriftKind = 'changed' | 'deleted' | 'unmanaged';

export interface Drift {
  address: string;
  kind: KindName;
  identity: string[];
  drift: DriftKind;
  /** The tenant's id (changed, unmanaged) or the recorded one (deleted); null when the kind has none. */
  id: string | null;
  /** Recorded attributes; null for unmanaged. */
  recorded: Attributes | null;
  /** Live attributes; null for deleted. */
  live: Attributes | null;
  /** changed: the fields that differ (dotted paths; "id" when the tenant has another id). */
  fields: string[];
  /** The config declares this resource (deleted: it will be created again; unmanaged: it is recorded now). */
  desired: boolean;
}

/**
 * 2: saved plans record state_location and target. 3: plans record their API
 * profile (`api`) and may update. 4: saved plans are sealed (`seal`, see plan-seal.ts).
 */
export const PLAN_FORMAT_VERSION = 4;

/** Older format versions of saved plans, made before seals: refused with a message of their own. */
export const UNSEALED_PLAN_VERSIONS: readonly number[] = [2, 3];

export type { Action, PlanSummary } from './actions.js';

/**
 * Why the planner chose a change's action: a code and its data, the way
 * Terraform's plans keep an `ActionReason` and the replace paths. Apply never
 * reads it; the renderers word it (`reasonText`, reason-words.ts) when they
 * show a plan, so the sentence a person reads is written at render time,
 * never made where the change is decided.
 *
 * `paths` are the changed attributes as dotted paths ("configuration.limit"),
 * sorted; `fixed` the top-level attributes among them that the kind's update
 * cannot change (the rule that forces a replace). Whether the record was
 * adopted, and its address and kind, are the change's own fields.
 */
export type PlanReason =
  /** create: the state records nothing at this address. */
  | { code: 'create' }
  /** no-op: the configuration matches the record. */
  | { code: 'no-op' }
  /** update: every changed attribute can be updated in place. */
  | { code: 'update'; paths: string[] }
  /** replace: --replace asked for it, and nothing changed. */
  | { code: 'replace-by-request' }
  /** replace: the profile has no update for the kind (its limitation says why). */
  | { code: 'replace-because-cannot-update'; paths: string[] }
  /** replace: attributes changed that the update cannot change after creation. */
  | { code: 'replace-because-fixed'; paths: string[]; fixed: string[] }
  /** blocked: an update would make the change, but it needs the id the record lacks. */
  | { code: 'update-without-id'; paths: string[] }
  /** blocked: a replace would make the change, but its delete needs the id the record lacks. */
  | { code: 'replace-without-id'; paths: string[] }
  /** blocked: no operation of the profile can make the change (no update for it, no delete). */
  | { code: 'cannot-change'; paths: string[] }
  /** delete: the configuration no longer declares it. */
  | { code: 'delete-because-no-config' }
  /** blocked: no longer declared, but its delete needs the id the record lacks. */
  | { code: 'delete-without-id' }
  /** forget: no longer declared, and the profile cannot delete the kind. */
  | { code: 'forget-because-cannot-delete' }
  /** delete: the plan destroys everything recorded. */
  | { code: 'destroy' }
  /** blocked: destroyed, but its delete needs the id the record lacks. */
  | { code: 'destroy-without-id' }
  /** forget: destroyed, and the profile cannot delete the kind. */
  | { code: 'destroy-forget' };

export type ReasonCode = PlanReason['code'];

export interface Change {
  address: string;
  kind: KindName;
  identity: string[];
  action: Action;
  /** Recorded attributes (null when nothing is recorded). */
  before: Attributes | null;
  /** Desired attributes (null when not desired). */
  after: Attributes | null;
  /** Recorded server id, needed by update, delete and replace; null when unknown or the kind has none. */
  id: string | null;
  /** The recorded resource was adopted through 409 (its settings were never verified). */
  adopted: boolean;
  /** Why the planner chose the action: a code and its data, worded when shown (reasonText). */
  reason: PlanReason;
  /** Where the desired resource is declared; null for removals. */
  source: SourcePosition | null;
}

/** A plan: plain data, saved as JSON (schemas/plan.schema.json), applied exactly. */
export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  /** The API profile the plan was made for: which operations apply may send. */
  api: ApiProfile;
  /** The state the plan was made from; apply refuses a saved plan when these changed. null lineage = no state yet. */
  state: { lineage: string | null; serial: number };
  /**
   * Present when the plan is partial (--target): the addresses it was limited
   * to. Changes to other resources are left out and wait for a later plan.
   */
  targets?: string[];
  /** Present (true) when the plan removes everything the state records (destroy). */
  destroy?: true;
  /** Every resource, in deterministic order (kind order, then address), no-ops included (only targeted ones in a partial plan). */
  changes: Change[];
  summary: PlanSummary;
  /**
   * Present when the plan was made after reading the tenant (--refresh): what
   * changed outside tenantform, per resource. The changes are then planned
   * against what is live.
   */
  drift?: Drift[];
  /**
   * The guardrails' warnings when the plan was made (tenantform.yaml's
   * settings applied): data, each rule's sentence is written when shown.
   * Present on plans made by plan and apply, saved with --out, so that show
   * prints and apply --strict judges what the reviewer saw.
   */
  findings?: Finding[];
  /**
   * plan --simulate only, never saved: what each changed rate limit policy
   * would have done to the traffic of the tenant's logs, by address.
   */
  simulated?: Readonly<Record<string, SimulatedEvidence>>;
  /**
   * What the tenant calls the applications, Actions and APIs the changes
   * refer to, from the read the plan was made with (plan --refresh): shown
   * beside their ids. Absent when no name is known.
   */
  names?: PlanNames;
}

/** Names of reference items from a read of the tenant, and when it was read. */
export interface PlanNames {
  /** When the tenant was read (ISO 8601). */
  read_at: string;
  /** Reference list (client, action, resource_server) → the key the config names it by → its name on the tenant. */
  items: Record<string, Record<string, string>>;
}
