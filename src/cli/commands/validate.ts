/**
 * tenantform validate [PATH...] [--var NAME=VALUE]... [--var-file FILE]... [--format text|json|github]
 *
 * Prints what runValidate (src/run/validate.ts) found of the config (PATH
 * defaults to "."; several PATHs are merged): every problem at file:line:col.
 * Sends no request, reads no state (with --live, the run also reads the
 * tenant's reference lists, and the output says what it checked).
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
import type { ReferencesRead } from '../../api/index.js';
import type { ConfigIssue, LoadResult } from '../../config/index.js';
import {
  KINDS,
  REFERENCE_LISTS,
  referencedKeys,
  type ConfigCounts,
  type DesiredResource,
} from '../../resources/index.js';
import type { LiveReferences, Validation, ValidateResult } from '../../run/validate.js';
import { errorCountLine, flagIssue, formatIssue, reportIssues } from '../config-issues.js';
import { reportWarnings } from '../guardrails.js';
import type { CommandIO } from '../io.js';
import { referenceTitles, uncheckedLists } from '../tenant-read.js';
import { listed, plural } from '../words.js';

export type ValidateFormat = 'text' | 'json' | 'github';

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

const NOT_CHECKED =
  'References not checked against the tenant: the spec API profile has no read operation (use --api full, or api: full for the environment in tenantform.yaml).';

/** How many distinct items of the lists `names` the config refers to: "4 applications, 2 actions and 2 APIs". */
function namedCount(desired: readonly DesiredResource[], names: readonly string[]): string {
  return listed(
    REFERENCE_LISTS.filter((l) => names.includes(l.name)).map((l) =>
      plural(referencedKeys(l.references(desired)).length, l.title),
    ),
  );
}

/** "References checked against the tenant's applications in 2 requests: …", or why none was. */
function checkNote(desired: readonly DesiredResource[], read: ReferencesRead, problems: number): string {
  const names = Object.keys(read.items);
  if (names.length === 0)
    return `References not checked against the tenant: the token may list none of the lists the config refers to (${plural(read.pages, 'request')}).`;
  const checked = `References checked against the tenant's ${referenceTitles(names)} in ${plural(read.pages, 'request')}`;
  return problems === 0
    ? `${checked}: the ${namedCount(desired, names)} the config names exist.`
    : `${checked}.`;
}

/**
 * A validation with what --live found of its references: the references the
 * tenant lacks are errors, and so, under --strict, is each list the token may
 * not read (a warning otherwise); and the sentence about the check.
 */
function withReferences(
  { result, warnings }: Validation,
  references: LiveReferences,
): Validation & { check: ReferenceCheck } {
  if (references.kind === 'spec') return { result, warnings, check: { checked: false, note: NOT_CHECKED } };
  if (references.kind === 'none-named') {
    const note = 'References: the config names no application, Action or API; nothing to check.';
    return { result, warnings, check: { checked: true, requests: 0, note } };
  }
  const { desired, read, strict } = references;
  const unchecked = uncheckedLists(desired, read);
  const errors = [...(strict ? unchecked : []), ...references.missing];
  return {
    result: errors.length > 0 ? { ...result, desired: [], issues: [...result.issues, ...errors] } : result,
    warnings: [...(strict ? [] : unchecked), ...warnings],
    check: {
      checked: Object.keys(read.items).length > 0,
      requests: read.pages,
      note: checkNote(desired, read, errors.length),
    },
  };
}

/** A validation's issues in the command line's words: a setting an issue names, by its flag. */
function worded({ result, warnings }: Validation): Validation {
  return { result: { ...result, issues: result.issues.map(flagIssue) }, warnings };
}

/**
 * Prints what runValidate (src/run/validate.ts) found in `format`; returns
 * the exit code (0 valid, 1 not). Several environments: text and github put
 * "Environment NAME:" before each, json prints
 * {"valid": bool, "environments": [{"environment", "valid", "files", "counts", "errors", "warnings"}]}.
 */
export function writeValidateResult(found: ValidateResult, format: ValidateFormat, io: CommandIO): number {
  if (found.kind === 'one') {
    const validation = worded(found.validation);
    if (!found.references) return writeValidation(validation.result, format, io, validation.warnings);
    const { result, warnings, check } = withReferences(validation, found.references);
    return writeValidation(result, format, io, warnings, check);
  }
  if (format === 'json') {
    const environments = found.environments.map(({ env, validation }) => ({
      environment: env,
      ...validationJson(worded(validation)),
    }));
    const valid = environments.every((e) => e.valid === true);
    io.stdout.write(JSON.stringify({ valid, environments }) + '\n');
    return valid ? 0 : 1;
  }
  let code = 0;
  for (const { env, validation } of found.environments) {
    io.stdout.write(`Environment ${env}:\n`);
    const { result, warnings } = worded(validation);
    code = Math.max(code, writeValidation(result, format, io, warnings));
  }
  return code;
}
