/**
 * What stops a run, as data: a code and the values a sentence needs. The run
 * layer speaks of settings (the state, the target, the credentials), never of
 * the command line's flags; its `message` is a plain fallback. src/cli words
 * each problem with the flags that set it (run-words.ts) and decides the exit
 * code.
 */

/** A run's problems, each with the data its sentence needs. */
export type RunProblem =
  /** The config path that locates the default state does not exist, and no state is named. */
  | { code: 'STATE_CONFIG_MISSING'; configPath: string }
  /** The state named, or located, is a directory. */
  | { code: 'STATE_IS_DIRECTORY'; path: string; named: string | null }
  /** Backend settings were given for the file backend. */
  | { code: 'STATE_SETTINGS_NEED_PG' }
  /** No target nor environment says which of the config's several states to use. */
  | { code: 'STATE_AMBIGUOUS'; configPath: string; states: readonly string[] }
  /** An environment's credential variable is not set. */
  | { code: 'ENV_CREDENTIALS_MISSING'; env: string | null; field: string; variable: string }
  /** Only tenantform.yaml names the target: credentials do not go there. */
  | {
      code: 'TARGET_NOT_CONFIRMED';
      env: string | null;
      baseUrl: string;
      host: string;
      key: 'base_url' | 'domain';
    }
  /** The state (`state`, described) is bound to the tenant at `bound`, and the run would act on `target`. */
  | { code: 'STATE_OTHER_TENANT'; state: string; bound: string; target: string; command: string }
  /** A plan file could not be written (`reason`, from the file system). */
  | { code: 'PLAN_UNWRITABLE'; file: string; reason: string }
  /** A saved plan refused (stale, edited, unsealed, made for another state, target or profile): nothing was sent. */
  | { code: 'PLAN_REFUSED'; error: Error & { code: string } }
  /** A policy asked about is an address of another kind. */
  | { code: 'POLICY_NOT_A_POLICY'; text: string }
  /** A policy asked about is not declared: `closest` is the selector most like it, `declared` how many there are. */
  | { code: 'POLICY_NOT_DECLARED'; text: string; selector: string; closest: string | null; declared: number }
  /** A read of the tenant (`read`: what it reads) under the spec profile, which has no read operation. */
  | {
      code: 'READ_NEEDS_FULL';
      read: 'apply-refresh' | 'all-clients' | 'simulate-tenant-logs' | 'plan-tenant-logs';
    }
  /** A log source (a file or directory of events) that is not log events: `message` names the file and line. */
  | { code: 'LOGS_UNREADABLE'; via: 'simulate' | 'plan'; message: string }
  /** The tenant's logs could not be read on: an answer that is not a page (`status`), or an event without log_id (null). */
  | { code: 'LOGS_READ_STOPPED'; status: number | null }
  /** An id to attach to `address`, which neither the state records nor the config at `configPath` declares. */
  | { code: 'IMPORT_UNKNOWN'; address: string; configPath: string }
  /** The tenant did not give a resource (`title`: its kind's, as "rate limit policy") with `id` (`status`: 404, or what it answered). */
  | { code: 'IMPORT_ID_UNKNOWN'; title: string; id: string; status: number }
  /** The id names another resource (`found`) than the one to import (`address`). */
  | { code: 'IMPORT_ID_OTHER'; id: string; found: string; address: string }
  /** No resource (`title`: its kind's) at `address` on the tenant. */
  | { code: 'IMPORT_NOT_ON_TENANT'; title: string; address: string }
  /** A peer's file (a Terraform state, a Deploy CLI export) that cannot be read: `reason`, from the file system. */
  | { code: 'PEER_FILE_UNREADABLE'; peer: 'terraform' | 'deploy-cli'; path: string; reason: string }
  /** A peer's files that hold nothing tenantform manages: `types`, what they could have held. */
  | { code: 'PEER_SOURCE_EMPTY'; peer: 'terraform' | 'deploy-cli'; path: string; types: readonly string[] }
  /** The directory to export into holds config: files export would overwrite, and others the export would join. */
  | {
      code: 'EXPORT_TARGET_HOLDS_CONFIG';
      dir: string;
      overwritten: readonly string[];
      others: readonly string[];
    };

export type RunProblemCode = RunProblem['code'];

/** An error of the run layer: `problem` says what, as data; the message is a fallback without flag names. */
export class RunError extends Error {
  readonly code: RunProblemCode;

  constructor(
    readonly problem: RunProblem,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'RunError';
    this.code = problem.code;
  }
}
