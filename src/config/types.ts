import type { ConfigCounts, DesiredResource, Wording } from '../resources/index.js';

/**
 * One problem found in the config, at a place the user can open.
 * `line` and `col` are 1-based; both are 0 when the issue concerns a whole
 * file (not found, too large) or the command line rather than a position.
 */
export interface ConfigIssue {
  /** The file as shown to the user: relative to cwd when inside it, else absolute. Empty for command-line problems. */
  file: string;
  line: number;
  col: number;
  /** A sentence a person can act on, e.g. "limit must be at most 10000". */
  message: string;
  /** Stable machine code, e.g. SCHEMA_MAXIMUM, YAML_SYNTAX, DUPLICATE_RESOURCE, VAR_UNRESOLVED. */
  code: string;
  /**
   * The message as a wording, when it names a setting (VAR_UNRESOLVED,
   * PEER_UNRESOLVED): `message` names it neutrally, src/cli words it with
   * the flag and shows the issue without this field.
   */
  wording?: Wording;
}

/**
 * What a config declares: `files`, then per kind (in KINDS order) its config
 * key and how many resources of it, and after a grouped kind the plural of
 * its owner and how many distinct owners (`users`: user ids with permissions).
 */
export type { ConfigCounts } from '../resources/index.js';

export interface LoadResult {
  /**
   * The resources the config asks for: files in load order; within a document, kind by kind in KINDS order,
   * each in list order. Empty whenever `issues` is not: never act on a partly valid config.
   */
  desired: DesiredResource[];
  /** Every issue, sorted by file, line, col. */
  issues: ConfigIssue[];
  /** Files read, as shown to the user, in load order. */
  files: string[];
  counts: ConfigCounts;
}

/** Looks a variable up by name; undefined when it is not set. */
export type VariableLookup = (name: string) => string | undefined;

/** Bounds that keep a hostile or broken file from costing much. */
export interface ConfigLimits {
  /** Largest file read, in bytes (default 5 MiB). */
  maxFileBytes: number;
  /** Most alias nodes (`*name`) one YAML document may contain (default 100). */
  maxAliases: number;
  /** Most values aliases may expand to in one document, counted after expansion (default 10,000). */
  maxAliasExpansion: number;
}

export const DEFAULT_LIMITS: Readonly<ConfigLimits> = {
  maxFileBytes: 5 * 1024 * 1024,
  maxAliases: 100,
  maxAliasExpansion: 10_000,
};

/** What parsing one file's text needs besides the text. */
export interface ParseContext {
  /** Variables for ${NAME}: a lookup function or a plain map. Default: none set. */
  vars?: VariableLookup | Readonly<Record<string, string>>;
  limits?: Partial<ConfigLimits>;
}

/** One file's share of the config: its issues and the resources it declares. */
export interface ParsedFile {
  file: string;
  issues: ConfigIssue[];
  /** Every well-identified item (identity fields are strings), valid or not; used for counts and duplicate checks. */
  resources: DesiredResource[];
}

export interface LoadOptions {
  /** Stops the load (Ctrl+C): it throws the signal's reason between files and after each parse. */
  signal?: AbortSignal;
  /** --var NAME=value pairs (highest precedence). */
  vars?: Readonly<Record<string, string>>;
  /** --var-file paths, YAML mappings of NAME: value; a later file wins over an earlier one. */
  varFiles?: readonly string[];
  /** Environment for TENANTFORM_VAR_<NAME> (lowest precedence). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths are resolved against and shown relative to. Default: process.cwd(). */
  cwd?: string;
  limits?: Partial<ConfigLimits>;
}
