import type { Attributes, RecordedResource } from '../resources/index.js';
import type { Action } from '../plan/types.js';

/** The API operations the executor needs; src/api's ApiClient satisfies it. */
export interface ExecutorClient {
  createRateLimitPolicy(
    body: Attributes,
  ): Promise<{ outcome: 'created'; policy: { id: string; created_at?: string } } | { outcome: 'present' }>;
  deleteRateLimitPolicy(id: string): Promise<{ outcome: 'deleted' } | { outcome: 'gone' }>;
  assignUserPermissions(
    userId: string,
    permissions: { resource_server_identifier: string; permission_name: string }[],
  ): Promise<{ outcome: 'assigned' }>;
  createTokenExchangeProfile(
    body: Attributes,
  ): Promise<{ outcome: 'created'; profile: { id: string; created_at?: string } } | { outcome: 'present' }>;
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
  /** Injected clock for created_at fallbacks; unused for decisions. */
  now?: () => Date;
}
