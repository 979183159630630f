/**
 * The commands that work on this machine as typed requests: the state
 * commands (`state list|show|rm|rescue|repair|migrate`, `force-unlock`),
 * `show`, `init`, `fmt`, `envs` and `emulator`. src/cli parses each
 * command's flags once into one of these (src/cli/local-requests.ts); what
 * runs it (local-runs.ts, src/state, src/config) never sees a flag.
 */
import type { EmulatorOptions } from '../emulator/index.js';
import type { RescueFile } from '../state/index.js';
import type { ConfigInput, StateRequest } from './requests.js';

/**
 * The state a state command works on: the config input PATH and the
 * environment name, and the state the command names (else the
 * environment's, else the default place beside the config).
 */
export interface LocatedState {
  input: ConfigInput;
  state: StateRequest;
}

/** `state list`: every record, with its problems. */
export interface StateListRequest {
  located: LocatedState;
}

/** `state show ADDRESS`: one record. */
export interface StateShowRequest {
  located: LocatedState;
  /** The address in its canonical spelling. */
  address: string;
}

/** `state rm ADDRESS`: stop tracking one record, under the lock. */
export interface StateRmRequest {
  located: LocatedState;
  /** The address in its canonical spelling. */
  address: string;
  /** How long to wait for the state lock, in ms. */
  lockTimeoutMs: number;
}

/** `state rescue FILE`: record a rescue file's (or a log's) operations, under the lock. */
export interface StateRescueRequest {
  /** The rescue file or log named, read (its path absolute). */
  rescue: RescueFile;
  located: LocatedState;
  lockTimeoutMs: number;
}

/** `state repair`: rewrite a damaged journal, under the lock. */
export interface StateRepairRequest {
  located: LocatedState;
  lockTimeoutMs: number;
}

/** `force-unlock`: remove a lock; one whose holder may still run only when `force`. */
export interface ForceUnlockRequest {
  located: LocatedState;
  force: boolean;
}

/** `state migrate`: copy one state into another place. */
export interface StateMigrateRequest {
  from: StateRequest;
  to: StateRequest;
  /** Overwrite a target that holds another lineage. */
  force: boolean;
  /** How long to wait for each state lock, in ms. */
  lockTimeoutMs: number;
}

/** `show`: a saved plan (checked against its seal), or the state. */
export type ShowRequest =
  | {
      kind: 'plan-file';
      /** The plan file as given. */
      file: string;
      /** The state whose plan key seals it (the command's own, else the one the plan names). */
      state: StateRequest;
      output: { format: 'text' | 'json' | 'markdown' | 'terraform-json'; verbose: boolean };
    }
  | { kind: 'state'; located: LocatedState; output: { format: 'text' | 'json' | 'markdown' } };

/** `init`: the scaffold written into a directory. */
export interface InitRequest {
  /** The directory as given. */
  given: string;
  /** The directory, absolute. */
  dir: string;
  /** Overwrite files and add the examples to a directory that holds config. */
  force: boolean;
}

/** `fmt`: the config files below the paths, in the canonical layout. */
export interface FmtRequest {
  paths: readonly string[];
  /** Write nothing; a file that would change fails the run. */
  check: boolean;
  /** Show each change as a diff. */
  diff: boolean;
}

/** `envs`: the environments of a project, or those changed files affect. */
export interface EnvsRequest {
  /** The project directory as given. */
  path: string;
  /** Changed files (from the working directory); null: every environment. */
  changed: readonly string[] | null;
  format: 'text' | 'json' | 'github-matrix';
}

/** `emulator`: one tenant, or several, each on its own port. */
export interface EmulatorRequest {
  /** startEmulator's options, checked; the log is the caller's. */
  options: Omit<EmulatorOptions, 'log'>;
  /** Several tenants' names; null: one tenant. */
  tenants: readonly string[] | null;
  /** One JSON line once listening, instead of the banner. */
  json: boolean;
}
