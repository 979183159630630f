/**
 * A command as a typed request: what src/cli makes of the command line, the
 * process environment and tenantform.yaml, parsed and checked once (numbers,
 * durations, combinations), in the run's own terms: the config it reads, the
 * state it uses, the tenant it talks to and how fast, what it selects and how
 * it reports. Nothing below src/cli sees a flag; each step of a run takes the
 * part of the request it needs.
 */
import type { ApiClientOptions } from '../api/types.js';
import type { Environment } from '../config/project.js';
import type { ApiProfile, SettingNames, Wording } from '../resources/index.js';
import type { RescueOutcome } from '../state/index.js';
import type { LockInfo, StateStore, TakeoverReason } from '../state/types.js';

/** What one run of the loader reads: config paths and variable files, for one environment or none. */
export interface ConfigInput {
  /** Environment name from tenantform.yaml, or null for plain paths. */
  env: string | null;
  paths: string[];
  varFiles: string[];
  /** The tenantform.yaml entry: target, credentials and state, when it names them. */
  environment?: Environment;
}

/**
 * Where the state is, as the command names it: a file, or the pg backend and
 * its settings (`backendConfig`, KEY=VALUE items) and workspace. Nothing
 * named: the environment's `state:`, else the default place beside the config.
 */
export interface StateRequest {
  /** A state file (relative to the working directory). */
  file?: string;
  backend?: 'file' | 'pg';
  backendConfig?: readonly string[];
  workspace?: string;
  /** The pg backend logs its statements' outcomes (never the password). */
  debug?: boolean;
}

/** A tenant named by domain or by API base URL (both absent: none named). */
export interface TargetRequest {
  domain?: string;
  baseUrl?: string;
}

/** How fast the client may go and how long it waits out 429s. */
export type Pacing = Pick<ApiClientOptions, 'maxRps' | 'share' | 'retry'>;

/**
 * How to reach the tenant: the target the command line names (`named`, which
 * confirms it; see confirmed-tenant.ts), else the environment's, else the
 * process environment's; the credentials, the pacing and the logging.
 */
export interface ConnectionRequest {
  /** The target the command line names; empty: none. */
  named: TargetRequest;
  /** The target the run uses: `named`, else the environment's in tenantform.yaml (empty: the process environment's). */
  target: TargetRequest;
  /** The client-credentials audience. */
  audience?: string;
  /** A file holding the bearer token, absolute. */
  tokenFile?: string;
  /** Log each request (secrets redacted). */
  debug: boolean;
  pacing: Pacing;
  /** Act on another tenant than the one the state is bound to (and bind it there). */
  reassignTenant: boolean;
}

/** Which resources a plan covers and what it forces. */
export interface Selection {
  /** Addresses the plan is limited to; empty: all. */
  targets: readonly string[];
  /** Addresses replaced although nothing changed. */
  replace: readonly string[];
  /** Plan the removal of everything the state records. */
  destroy: boolean;
}

/** Where a plan or an apply takes its changes from: a config, or a saved plan file. */
export type ChangeSource =
  | {
      kind: 'config';
      input: ConfigInput;
      /** The variables given on the command line (parsed); null for a destroy, which reads no config. */
      vars: Record<string, string> | null;
    }
  | {
      kind: 'plan-file';
      /** The plan file as given. */
      file: string;
      /** The environment it is applied with (target, credentials, state), or none. */
      input: ConfigInput;
    };

/** `apply` and `destroy`: one environment. */
export interface ApplyRequest {
  command: 'apply' | 'destroy';
  source: ChangeSource;
  state: StateRequest;
  /** How long to wait for the state lock, in ms. */
  lockTimeoutMs: number;
  connection: ConnectionRequest;
  /** The API profile the command or the environment names; undefined: spec (a saved plan: its own). */
  api: ApiProfile | undefined;
  selection: Selection;
  /** Read the tenant first and plan against what is live. */
  refresh: boolean;
  /** Every guardrail warning is an error. */
  strict: boolean;
  /** Apply the rest when some changes are blocked. */
  skipBlocked: boolean;
  /** Ask no question. */
  autoApprove: boolean;
  /** Operations at once. */
  parallelism: number;
  /** Resources per request where one request carries several. */
  batchSize: number;
  output: { json: boolean; verbose: boolean };
}

/** `plan`: one environment. */
export interface PlanRequest {
  input: ConfigInput;
  /** The variables given on the command line (parsed); null for a destroy plan, which reads no config. */
  vars: Record<string, string> | null;
  state: StateRequest;
  connection: ConnectionRequest;
  api: ApiProfile;
  selection: Selection;
  refresh: boolean;
  strict: boolean;
  /** The plan file to save the plan to, sealed. */
  out?: string;
  /** Exit 2 when there are changes. */
  detailedExitcode: boolean;
  /** The log events to simulate each changed policy against. */
  simulate?: string;
  output: { format: 'text' | 'json' | 'markdown' | 'terraform-json'; verbose: boolean };
}

/**
 * One environment of a multi-environment run: its plan or apply request, or
 * the problem that kept its request from being made (its failure, told in
 * its turn; the other environments run).
 */
export type FleetEnvironment = { name: string; input: ConfigInput } & (
  | { command: 'plan'; request: PlanRequest }
  | { command: 'apply'; request: ApplyRequest }
  | { command: 'plan' | 'apply'; problem: unknown }
);

/** `plan` and `apply` over several environments (or all of them), each its own run. */
export interface FleetRequest {
  command: 'plan' | 'apply';
  /** In the order the results keep. */
  environments: readonly FleetEnvironment[];
  /** Environments run at once. */
  parallelism: number;
}

/** `refresh`: one environment, read under the lock. */
export interface RefreshRequest {
  input: ConfigInput;
  /** The variables given on the command line (parsed). */
  vars: Record<string, string>;
  state: StateRequest;
  /** How long to wait for the state lock, in ms. */
  lockTimeoutMs: number;
  connection: ConnectionRequest;
  /** Lists read at once (at most 8 of them). */
  parallelism: number;
}

/** What a run tells its caller on the way, as data (src/cli words it). */
export type RunNotice =
  /** The default state used is where an earlier tenantform kept it, bound to no tenant: it may move to `moveTo`. */
  | { kind: 'older-state'; path: string; moveTo: string }
  /** A debug line (requests, statements): never a secret. */
  | { kind: 'debug'; line: string }
  /** The lock of a holder that can no longer write was taken over, its journal (`replayed` operations) replayed. */
  | { kind: 'lock-takeover'; holder: LockInfo; replayed: number; how: TakeoverReason }
  /** A rescue file that could not be read, left as it is (a setting it names kept as data). */
  | { kind: 'rescue-unreadable'; problem: Wording | string }
  /** What became of the rescue files found: included in a read, or recorded into the state under the lock. */
  | { kind: 'rescued'; rescued: RescueOutcome; into: 'read' | 'state' }
  /** The names kept with the state could not be read (`error` says why): ids are shown alone. */
  | { kind: 'names-unread'; error: unknown }
  /** The names read from the tenant could not be kept with the state (`error` says why). */
  | { kind: 'names-unkept'; error: unknown };

/** What a run may touch of the outside world; src/cli builds it from its CommandIO. */
export interface RunIO {
  env: Record<string, string | undefined>;
  cwd: string;
  signal?: AbortSignal;
  notice(notice: RunNotice): void;
  /** How the API client's wait reasons name a setting (src/cli: by its flag). */
  settingNames?: SettingNames;
  /** Opens the file state backend at an absolute path (tests inject their own). */
  openFileStore?: (path: string) => StateStore;
}
