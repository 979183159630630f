/**
 * tenantform validate [PATH...] [--var NAME=VALUE]... [--var-file FILE]... [--format text|json|github]
 *
 * Checks the config (PATH defaults to "."; several PATHs are merged) and
 * reports every problem at file:line:col. Sends no request, reads no state
 * (with --live, validate-live.ts also reads the tenant's reference lists).
 *
 * Besides the schema, the guardrails' config rules run on a valid config
 * (src/review, docs/reviewing-policy-changes.md): an error-level finding is
 * an error like any other (with its rule code as `code`), a warning is
 * reported and leaves the config valid; --strict (tenantform.yaml settings
 * likewise) decides which is which.
 *
 * Exit codes: 0 valid (warnings or not); 1 invalid, including a malformed
 * --var, an unreadable --var-file, and a warning under --strict.
 *
 * Formats:
 * - text (default): valid → one summary line on stdout, e.g.
 *   "Valid: 3 files, 4 rate limit policies, 12 user permissions (5 users), 2 token exchange profiles.";
 *   invalid → one "file:line:col: message" line per error on stderr, then "N errors.";
 *   warnings → "file:line:col: warning: message [rule]" lines on stderr, then "N warnings.".
 * - json: one JSON object on stdout, valid or not:
 *   {"valid": boolean, "files": string[],
 *    "counts": {"files", "rate_limit_policies", "user_permissions", "users", "token_exchange_profiles"},
 *    "errors": [{"file", "line", "col", "message", "code"}], "warnings": [same shape]}
 *   line and col are 1-based, and both 0 when an error concerns a whole file
 *   (not found, too large); file is "" for an error in the command line.
 * - github: one "::error file=F,line=L,col=C::message" workflow command per
 *   error and "::warning …" per warning on stdout (GitHub shows them as
 *   annotations on the files), then the summary line ("Valid: …" or "N errors.").
 */
import { compareIssues, countResources } from '../../config/combine.js';
import { loadConfig, type ConfigCounts, type ConfigIssue, type LoadResult } from '../../config/index.js';
import { KINDS } from '../../resources/index.js';
import { checkConfig, DEFAULT_SETTINGS, type GuardrailSettings } from '../../review/index.js';
import { errorCountLine, flagIssue, formatIssue, reportIssues } from '../config-issues.js';
import { findingIssue, reportWarnings } from '../guardrails.js';
import type { CommandIO } from '../io.js';
import type { VarsOrProblem } from '../../run/read-requests.js';
import { plural } from '../words.js';

export type ValidateFormat = 'text' | 'json' | 'github';

/** What one config is validated with. */
export interface ValidateOptions {
  /** The --var values parsed, or the problem with one (reported as the config's). */
  vars: VarsOrProblem;
  /** The variable files, the environment's and then --var-file's. */
  varFiles: readonly string[];
  /** The guardrails' settings (tenantform.yaml, --strict); default: each rule's own severity. */
  guardrails?: GuardrailSettings;
}

/** A load result and the guardrails' warnings about it. */
export interface Validation {
  result: LoadResult;
  warnings: ConfigIssue[];
}

/**
 * The config rules over a config that passed every other check: their
 * errors become the result's issues (the config is then invalid), their
 * warnings come apart. A config with issues is returned as it is.
 */
export function withGuardrails(result: LoadResult, settings: GuardrailSettings): Validation {
  if (result.issues.length > 0) return { result, warnings: [] };
  const findings = checkConfig(result.desired, settings);
  const issues = (severity: string) =>
    findings
      .filter((f) => f.severity === severity)
      .map(findingIssue)
      .sort(compareIssues);
  const errors = issues('error');
  return {
    result: errors.length > 0 ? { ...result, desired: [], issues: errors } : result,
    warnings: issues('warning'),
  };
}

/**
 * "Valid: 3 files, 4 rate limit policies, 12 user permissions (5 users), 2 token exchange profiles.":
 * every kind in KINDS order, a grouped kind with its owners.
 */
export function summaryLine(counts: ConfigCounts): string {
  const count = (key: string) => (counts as Readonly<Record<string, number>>)[key] ?? 0;
  const parts = [plural(counts.files, 'file')];
  for (const kind of KINDS) {
    const group = kind.config.group;
    const owners = group ? ` (${plural(count(group.owner.many), group.owner)})` : '';
    parts.push(plural(count(kind.config.key), kind.title) + owners);
  }
  return `Valid: ${parts.join(', ')}.`;
}

function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One GitHub Actions workflow command: "::error file=F,line=L,col=C::message" (a rule's finding ends with its code). */
export function githubAnnotation(issue: ConfigIssue, level: 'error' | 'warning' = 'error'): string {
  const props: string[] = [];
  if (issue.file) props.push(`file=${escapeProperty(issue.file)}`);
  if (issue.file && issue.line > 0) props.push(`line=${issue.line}`, `col=${issue.col}`);
  const message = formatIssue({ ...issue, file: '' });
  return `::${level}${props.length > 0 ? ' ' + props.join(',') : ''}::${escapeData(message)}`;
}

/** The counts of a config that could not be read at all: zero of everything. */
export function noCounts(): ConfigCounts {
  return countResources([], 0);
}

/** What `validate --live` says of the references: checked or not, and the sentence for people. */
export interface ReferenceCheck {
  checked: boolean;
  /** Requests the check sent (when checked). */
  requests?: number;
  note: string;
}

/** The JSON body of one validation: {valid, files, counts, errors, warnings}, and `references` after --live. */
export function validationJson(
  { result, warnings }: Validation,
  references?: ReferenceCheck,
): {
  valid: boolean;
  files: string[];
  counts: ConfigCounts;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
  references?: ReferenceCheck;
} {
  const valid = result.issues.length === 0;
  return {
    valid,
    files: result.files,
    counts: result.counts,
    errors: result.issues,
    warnings,
    ...(references ? { references } : {}),
  };
}

/**
 * Prints a load result (and the guardrails' warnings) in the chosen format;
 * returns the exit code (0 valid, 1 not). With `references` (validate
 * --live): json gains a `references` object, text and github its sentence
 * (a notice in github).
 */
export function writeValidation(
  result: LoadResult,
  format: ValidateFormat,
  io: CommandIO,
  warnings: readonly ConfigIssue[] = [],
  references?: ReferenceCheck,
): number {
  const valid = result.issues.length === 0;
  if (format === 'json') {
    io.stdout.write(JSON.stringify(validationJson({ result, warnings: [...warnings] }, references)) + '\n');
  } else if (format === 'github') {
    const lines = [
      ...result.issues.map((i) => githubAnnotation(i)),
      ...warnings.map((i) => githubAnnotation(i, 'warning')),
    ];
    if (references) lines.push(`::notice::${escapeData(references.note)}`);
    lines.push(valid ? summaryLine(result.counts) : errorCountLine(result.issues.length));
    io.stdout.write(lines.join('\n') + '\n');
  } else {
    reportWarnings(warnings, io);
    if (valid)
      io.stdout.write(summaryLine(result.counts) + '\n' + (references ? `${references.note}\n` : ''));
    else {
      if (references) io.stderr.write(`${references.note}\n`);
      reportIssues(result.issues, io);
    }
  }
  return valid ? 0 : 1;
}

/** Loads and checks a config, guardrails included; a malformed --var is an issue too. */
export async function validateConfig(
  path: string | readonly string[],
  opts: ValidateOptions,
  io: CommandIO,
): Promise<Validation> {
  const { vars } = opts;
  const result: LoadResult = vars.ok
    ? await loadConfig(path, {
        vars: vars.vars,
        varFiles: opts.varFiles,
        env: io.env,
        cwd: io.cwd,
        ...(io.signal ? { signal: io.signal } : {}),
      })
    : { desired: [], files: [], counts: noCounts(), issues: [vars.issue] };
  // Issues in the command line's words: a setting an issue names, by its flag.
  const worded = { ...result, issues: result.issues.map(flagIssue) };
  return withGuardrails(worded, opts.guardrails ?? DEFAULT_SETTINGS);
}

/** Validates one config and prints it in `format`; returns the exit code (0 valid, 1 not). */
export async function runValidate(
  path: string | readonly string[],
  opts: ValidateOptions & { format: ValidateFormat },
  io: CommandIO,
): Promise<number> {
  const { result, warnings } = await validateConfig(path, opts, io);
  return writeValidation(result, opts.format, io, warnings);
}
