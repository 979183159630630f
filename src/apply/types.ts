import type {
  Attributes,
  ExpectedOutcome,
  KindName,
  OperationDescriptor,
  RecordedResource,
} from '../resources/index.js';
import type { Action, PlanReason } from '../plan/types.js';

/**
 * The one call the executor needs: send an operation from a kind's table
 * (src/resources) with its path parameters and body. src/api's ApiClient
 * satisfies it. A success carries the parsed body; 409 on a create and 404 on
 * a delete come back as outcomes when the operation declares them.
 */
export interface ExecutorClient {
  call(
    op: OperationDescriptor,
    params: Readonly<Record<string, string>>,
    body?: unknown,
  ): Promise<{ outcome: 'done'; body: unknown } | { outcome: ExpectedOutcome }>;
  /**
   * Looks up the resource of `kind` with the identity of `attributes` on the
   * tenant (API profile full: its list operation), for a create answered 409:
   * its id and live attributes, or null when the tenant has none. Absent when
   * the tenant cannot be read; the adoption is then recorded without an id.
   */
  lookup?(
    kind: KindName,
    attributes: Attributes,
  ): Promise<{ id: string | null; attributes: Attributes } | null>;
}

/** One acknowledged operation to record. */
export type RecordEntry = { op: 'put'; resource: RecordedResource } | { op: 'remove'; address: string };

/** Where acknowledged operations go; a StateSession satisfies it. Must be durable when it resolves. */
export interface Recorder {
  record(entry: RecordEntry): Promise<void>;
  /**
   * Asks for the records issued so far to be made durable now rather than
   * grouped with later ones: the executor calls it when it has nothing to
   * send until one of them is. Each record still resolves only once durable.
   */
  flush?(): void;
  /**
   * Why this recorder can no longer record (e.g. its lock was lost), or null.
   * Asked before every new task, so that nothing is sent that could not be recorded.
   */
  failure?(): Error | null;
  /**
   * What the state records at `address` now, or null. An update keeps the
   * record's created_at from it when the tenant's answer does not repeat it
   * (a profile's PATCH answers no body).
   */
  recorded?(address: string): RecordedResource | null;
}

/** What happened to one resource, as reported to the user. */
export type Outcome =
  | 'created'
  | 'adopted' // 409 on create: already present, settings not verified
  | 'updated'
  | 'deleted'
  | 'already-gone' // 404 on delete, or on update (deleted outside tenantform; the record is removed)
  | 'replaced'
  | 'forgotten'
  | 'assigned';

export interface ApplyEvent {
  type: 'start' | 'done' | 'failed' | 'wait';
  address?: string;
  action?: Action;
  outcome?: Outcome;
  message?: string;
  /** With a failure: the hint at the end of message, so that it can be shown once. */
  hint?: string;
  /** Number of resources the event covers (a permission batch covers several). */
  count?: number;
  waitMs?: number;
  /** done/failed: HTTP status of the operation's last answer; absent when it sent none (forget) or none arrived. */
  status?: number;
  /** failed: the error's stable code, e.g. API_BAD_REQUEST. */
  code?: string;
  /** What a wait is for (wait events). */
  waitKind?: 'rate-limit' | 'max-rps' | 'max-rate' | 'server-error' | 'connection';
}

export interface ApplyFailure {
  address: string;
  action: Action;
  /** The whole reason, including the hint when there is one. */
  message: string;
  code?: string;
  /** What to do about it, when the error says (the message's last sentence). */
  hint?: string;
}

/** An operation the tenant acknowledged but the recorder could not record. */
export interface UnrecordedOperation {
  address: string;
  action: Action;
  outcome: Outcome;
  /** The entry that could not be recorded: kept so that it can be recorded later (rescue). */
  entry: RecordEntry;
  message: string;
}

/** A 409 on create looked up on the tenant: the id recorded and the fields whose live value differs from the config. */
export interface Adoption {
  id: string | null;
  differs: string[];
}

export interface ApplyResult {
  /** Changes whose operations were acknowledged and recorded. */
  done: { address: string; action: Action; outcome: Outcome; adoption?: Adoption }[];
  failed: ApplyFailure[];
  /** Changes never started (after a fatal error, a record failure or a stop request). */
  notAttempted: { address: string; action: Action }[];
  /** Acknowledged by the tenant but not recorded: the caller must keep these (see rescue). */
  unrecorded: UnrecordedOperation[];
  /** Why scheduling stopped early, if it did: the first fatal error or record failure. */
  stoppedBy: { message: string; code?: string; cause: 'api' | 'record' | 'signal' } | null;
  /** Blocked changes left out (only when skipBlocked). */
  skipped: { address: string; reason: PlanReason }[];
}

export interface ApplyOptions {
  client: ExecutorClient;
  recorder: Recorder;
  /** Concurrent operations, default 10. */
  parallelism?: number;
  /** Resources per request of an operation with a batchKey (a user's permissions per POST), default 100. */
  batchSize?: number;
  /** Leave blocked changes out instead of refusing the plan. */
  skipBlocked?: boolean;
  onEvent?: (event: ApplyEvent) => void;
  /** Stop starting new operations when aborted; in-flight ones finish and are recorded. */
  signal?: AbortSignal;
  /**
   * How the caller words an error for a person (src/cli: the settings an
   * error's wording names, by their flags), its hint apart; undefined, or
   * absent: the error's message and hint as they are.
   */
  describeError?: (err: unknown) => { message: string; hint?: string } | undefined;
}
