/**
 * What a run tells the person running it, as typed data: the events on the
 * way (in order), the plan to review, and the confirmation it asks for.
 * src/cli implements a RunView per command (its renderers and prompt); tests
 * record the events with a fake one. Nothing here is worded.
 */
import type { ApplyEvent } from '../apply/index.js';
import type { TenantRead } from '../api/index.js';
import type { ConfigIssue } from '../config/index.js';
import type { Change, Plan } from '../plan/types.js';
import type { DesiredResource, ReferenceRead } from '../resources/index.js';
import type { Finding } from '../review/index.js';
import type { JournalEntry } from '../state/index.js';
import type { ApiClient } from '../api/index.js';
import type { ApplyResult } from '../apply/index.js';

/** The target a run names: its API base URL, none, or one that does not resolve (`error`). */
export type WhereTarget =
  { kind: 'set'; baseUrl: string } | { kind: 'unset' } | { kind: 'invalid'; error: unknown };

/** What a plan or apply tells a multi-environment run about one environment. */
export interface RunFigures {
  /** Where the state is (the store's description). */
  state?: string;
  /** The API base URL apply sends to. */
  target?: string;
  /** Changes in the plan (everything but no-ops). */
  changes?: number;
  /** Apply: operations done, failed and not attempted. */
  done?: number;
  failed?: number;
  notAttempted?: number;
  /** Apply: HTTP requests sent, how many were answered 429, and how many of those were retried. */
  requests?: number;
  status429?: number;
  retried429?: number;
}

/** Where the operations the state could not record went: a rescue file, or nowhere (`error` says why). */
export type RescueOutcome = { path: string } | { path: null; error: unknown };

/** An apply that sent its requests: the executor's result and what became of it. */
export interface AppliedResult {
  status: 'applied';
  plan: Plan;
  result: ApplyResult;
  /** What the client sent (none when no request was needed). */
  stats: ReturnType<ApiClient['stats']> | undefined;
  /** The rescue file of the unrecorded operations; null when every one was recorded. */
  rescue: RescueOutcome | null;
  /** A stop (signal, closed output) cut the apply short. */
  interrupted: boolean;
  /** Committing the state failed (told): the journal keeps every operation. */
  commitFailed: boolean;
}

/** What a run tells on the way, in the order it happens. */
export type RunEvent =
  /** The config has problems: the run stops, nothing read or sent. */
  | { kind: 'config-issues'; issues: readonly ConfigIssue[] }
  /** The guardrails found errors (config or plan rules): the run stops before anything is written or sent. */
  | { kind: 'guardrail-errors'; findings: readonly Finding[] }
  /** The state and the target the run acts on (`state` described for the person). */
  | { kind: 'where'; state: string; target: WhereTarget }
  /** The tenant was read. */
  | { kind: 'tenant-read'; read: TenantRead }
  /**
   * The config's references were checked against the read: `missing` names
   * what the tenant lacks; `holds` false stops the run.
   */
  | {
      kind: 'references';
      desired: readonly DesiredResource[];
      references: ReferenceRead;
      strict: boolean;
      missing: readonly ConfigIssue[];
      holds: boolean;
    }
  /** No state yet, and the plan creates resources: every one is new. */
  | { kind: 'no-state'; state: string }
  /** Figures for a multi-environment run's table. */
  | { kind: 'figures'; figures: RunFigures }
  /** A saved plan was written to `file`. */
  | { kind: 'plan-saved'; file: string }
  /** Apply starts sending: `total` operations. */
  | { kind: 'apply-started'; total: number }
  /** The executor's progress (an operation started, done, failed; a wait). */
  | { kind: 'progress'; event: ApplyEvent }
  /** The executor is done (the last progress event came). */
  | { kind: 'apply-finished' }
  /** Operations the tenant acknowledged that the state could not record: kept in a rescue file next. */
  | { kind: 'unrecorded'; entries: readonly JournalEntry[] }
  /** The apply is done: its outcome, told before the state is committed. */
  | { kind: 'applied'; applied: AppliedResult }
  /** Committing the state failed after the apply's summary; every operation is in the journal. */
  | { kind: 'commit-failed'; error: unknown };

/** A plan to review: the plan, what the config asks for, and the changes apply may make (plan: none). */
export interface PlanReview {
  plan: Plan;
  desired: readonly DesiredResource[];
  /** Null: the plan cannot be applied as it is (blocked changes not skipped); the run stops after showing it. */
  applicable: readonly Change[] | null;
}

/** What a run shows and asks. */
export interface RunView {
  /** An event, as it happens. */
  event(event: RunEvent): void;
  /**
   * The plan for the person to review, once made (plan: the plan command's
   * output; apply: before the question, with the changes apply may make).
   */
  showPlan(review: PlanReview): Promise<void>;
  /** Whether to apply `plan` (asked only when the request does not approve it already). */
  confirm(plan: Plan): Promise<boolean>;
  /** How an error the executor records is worded (its message and hint); undefined: its own. */
  describeError?: (err: unknown) => { message: string; hint?: string } | undefined;
}
