/**
 * The commands that read (the config, log events, the tenant or a peer's
 * files) as typed requests: validate, explain, simulate, import and export,
 * parsed and checked once by src/cli (src/cli/read-requests.ts) from the
 * command line, the process environment and tenantform.yaml. The parts they
 * share with apply and plan (the config input, the state, the connection)
 * are those of requests.ts.
 */
import type { ConfigIssue } from '../config/index.js';
import type { ApiProfile, KindName } from '../resources/index.js';
import type { ConfigInput, ConnectionRequest, StateRequest } from './requests.js';

/** How a command reads the tenant: its connection and the tenant's API profile. */
export interface TenantReader {
  connection: ConnectionRequest;
  api: ApiProfile;
}

/**
 * The variables given on the command line, parsed; or, for validate, which
 * reports a malformed one as a problem of the config, that problem.
 */
export type VarsOrProblem = { ok: true; vars: Record<string, string> } | { ok: false; issue: ConfigIssue };

/** `validate`: the config of one environment, or of every environment of a project. */
export interface ValidateRequest {
  /**
   * What is checked: the inputs (every environment of a project unless one
   * is named), or the problems of a tenantform.yaml that cannot be read,
   * reported as the config's.
   */
  source: { kind: 'inputs'; inputs: ConfigInput[] } | { kind: 'broken-project'; issues: ConfigIssue[] };
  vars: VarsOrProblem;
  /** Every guardrail warning is an error. */
  strict: boolean;
  /** Also check the config's references against the tenant (one environment); null: offline. */
  live: TenantReader | null;
  output: { format: 'text' | 'json' | 'github' };
}

/** `explain`: one environment's policies and the applications they govern. */
export interface ExplainRequest {
  input: ConfigInput;
  vars: Record<string, string>;
  /** The client ids asked about (a `client_id:` prefix taken off), once each, in the order given. */
  clients: readonly string[];
  /** The policies asked about: an address or a consumer_selector each, as given. */
  policies: readonly string[];
  /** Read every application of the tenant (API profile full); null: only `clients`. */
  allClients: TenantReader | null;
  output: { format: 'text' | 'markdown' | 'json' };
}

/** `simulate`: one environment's policies replayed against log events. */
export interface SimulateRequest {
  input: ConfigInput;
  vars: Record<string, string>;
  /** The log events: a file, a directory, or `tenant` (read through `reader`). */
  logs: string;
  /** Only events from then on (ms since the epoch); null: all. */
  since: number | null;
  /** At most this many events from the tenant. */
  maxEvents: number;
  reader: TenantReader;
  output: { format: 'text' | 'markdown' | 'json' };
}

/**
 * What `import` attaches: an id given, recorded from the state or the config
 * (`attach`, when the profile cannot read one resource) or read on the tenant
 * (`read`); or none, looked up on the tenant by identity (`look-up`).
 */
export type ImportHow =
  | { kind: 'attach'; id: string; vars: Record<string, string> }
  | { kind: 'read'; id: string }
  | { kind: 'look-up' };

/** `import`: one resource's id, into one environment's state. */
export interface ImportRequest {
  /** The resource's address, written as tenantform writes it. */
  address: string;
  kind: KindName;
  how: ImportHow;
  /** The config the attributes come from, and its environment. */
  input: ConfigInput;
  /** The config path as given (said when the resource is in neither the state nor the config). */
  configPath: string;
  state: StateRequest;
  /** How long to wait for the state lock, in ms. */
  lockTimeoutMs: number;
  connection: ConnectionRequest;
  api: ApiProfile;
}

/** Where `export` takes its resources from. */
export type ExportSourceRequest =
  /** The tenant (API profile full), with the permissions of these users. */
  | { kind: 'tenant'; users: readonly string[] }
  /** A Terraform state file. */
  | { kind: 'terraform'; file: string }
  /** A Deploy CLI export (its YAML file or directory), with Action ids given by name. */
  | { kind: 'deploy-cli'; path: string; actionIds: ReadonlyMap<string, string> };

/** `export`: resources written as config files into a directory, and recorded in a state. */
export interface ExportRequest {
  /** The directory as given. */
  dir: string;
  source: ExportSourceRequest;
  /** The state the resources are recorded in; null: none (only the files). */
  state: StateRequest | null;
  /** How long to wait for the state lock, in ms. */
  lockTimeoutMs: number;
  connection: ConnectionRequest;
  api: ApiProfile;
  /** Lists read at once. */
  parallelism: number;
}
