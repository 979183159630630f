import type { ExpectedOutcome, OperationDescriptor, RecordedResource } from '../resources/index.js';
import type { Action } from '../plan/types.js';

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
}

/** Where acknowledged operations go; a StateSession satisfies it. Must be durable when it resolves. */
export interface Recorder {
  record(entry: { op: 'put'; resource: RecordedResource } | { op: 'remove'; address: string }): Promise<void>;
}

/** What happened to one resource, as reported to the user. */
export type Outcome =
  | 'created'
  | 'adopted' // 409 on create: already present, settings not verified
  | 'deleted'
  | 'already-gone' // 404 on delete
  | 'replaced'
  | 'forgotten'
  | 'assigned';

export interface ApplyEvent {
  type: 'start' | 'done' | 'failed' | 'wait';
  address?: string;
  action?: Action;
  outcome?: Outcome;
  message?: string;
  /** Number of resources the event covers (a permission batch covers several). */
  count?: number;
  waitMs?: number;
  /** What a wait is for (wait events). */
  waitKind?: 'rate-limit' | 'max-rps' | 'server-error' | 'connection';
}

export interface ApplyFailure {
  address: string;
  action: Action;
  message: string;
  code?: string;
}

export interface ApplyResult {
  /** Changes whose operations were acknowledged and recorded. */
  done: { address: string; action: Action; outcome: Outcome }[];
  failed: ApplyFailure[];
  /** Changes never started (after a fatal error or a stop request). */
  notAttempted: { address: string; action: Action }[];
  /** Blocked changes left out (only when skipBlocked). */
  skipped: { address: string; reason: string }[];
}

export interface ApplyOptions {
  client: ExecutorClient;
  recorder: Recorder;
  /** Concurrent operations, default 10. */
  parallelism?: number;
  /** Permissions per POST /users/{id}/permissions, default 100. */
  permissionBatchSize?: number;
  /** Leave blocked changes out instead of refusing the plan. */
  skipBlocked?: boolean;
  onEvent?: (event: ApplyEvent) => void;
  /** Stop starting new operations when aborted; in-flight ones finish and are recorded. */
  signal?: AbortSignal;
}
