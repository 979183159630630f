/**
 * tenantform validate [PATH...] [--var NAME=VALUE]... [--var-file FILE]... [--format text|json|github]
 *
 * Checks the config (PATH defaults to "."; several PATHs are merged) and
 * reports every problem at file:line:col. Sends no request, reads no state
 * (with --live, validate-live.ts also reads the tenant's reference lists).
 *
 * Exit codes: 0 valid; 1 invalid, including a malformed --var or an
 * unreadable --var-file.
 *
 * Formats:
 * - text (default): valid → one summary line on stdout, e.g.
 *   "Valid: 3 files, 4 rate limit policies, 12 user permissions (5 users), 2 token exchange profiles.";
 *   invalid → one "file:line:col: message" line per error on stderr, then "N errors.".
 * - json: one JSON object on stdout, valid or not:
 *   {"valid": boolean, "files": string[],
 *    "counts": {"files", "rate_limit_policies", "user_permissions", "users", "token_exchange_profiles"},
 *    "errors": [{"file", "line", "col", "message", "code"}]}
 *   line and col are 1-based, and both 0 when an error concerns a whole file
 *   (not found, too large); file is "" for an error in the command line.
 * - github: one "::error file=F,line=L,col=C::message" workflow command per
 *   error on stdout (GitHub shows them as annotations on the files), then the
 *   summary line ("Valid: …" or "N errors.").
 */
import { countResources } from '../../config/combine.js';
import type { ConfigCounts, ConfigIssue, LoadResult } from '../../config/index.js';
import { KINDS } from '../../resources/index.js';
import { errorCountLine, reportIssues } from '../config-issues.js';
import { loadConfigInput, type VarFlags } from '../inputs.js';
import { CliError, type CommandIO } from '../io.js';
import { plural } from '../words.js';

export type ValidateFormat = 'text' | 'json' | 'github';

export interface ValidateOptions extends VarFlags {
  format: ValidateFormat;
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

/** One GitHub Actions workflow command: "::error file=F,line=L,col=C::message". */
export function githubAnnotation(issue: ConfigIssue): string {
  const props: string[] = [];
  if (issue.file) props.push(`file=${escapeProperty(issue.file)}`);
  if (issue.file && issue.line > 0) props.push(`line=${issue.line}`, `col=${issue.col}`);
  return `::error${props.length > 0 ? ' ' + props.join(',') : ''}::${escapeData(issue.message)}`;
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

/**
 * Prints a load result in the chosen format; returns the exit code (0 valid,
 * 1 not). With `references` (validate --live): json gains a `references`
 * object, text and github its sentence after the summary (a notice in github).
 */
export function writeValidation(
  result: LoadResult,
  format: ValidateFormat,
  io: CommandIO,
  references?: ReferenceCheck,
): number {
  const valid = result.issues.length === 0;
  if (format === 'json') {
    const body = {
      valid,
      files: result.files,
      counts: result.counts,
      errors: result.issues,
      ...(references ? { references } : {}),
    };
    io.stdout.write(JSON.stringify(body) + '\n');
  } else if (format === 'github') {
    const lines = result.issues.map((i) => githubAnnotation(i));
    if (references) lines.push(`::notice::${escapeData(references.note)}`);
    lines.push(valid ? summaryLine(result.counts) : errorCountLine(result.issues.length));
    io.stdout.write(lines.join('\n') + '\n');
  } else if (valid) {
    io.stdout.write(summaryLine(result.counts) + '\n' + (references ? `${references.note}\n` : ''));
  } else {
    if (references) io.stderr.write(`${references.note}\n`);
    reportIssues(result.issues, io);
  }
  return valid ? 0 : 1;
}

/** Runs `tenantform validate`; returns the exit code (0 valid, 1 not). */
export async function runValidate(
  path: string | readonly string[],
  opts: ValidateOptions,
  io: CommandIO,
): Promise<number> {
  let result: LoadResult;
  try {
    result = await loadConfigInput(path, opts, io);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    result = {
      desired: [],
      files: [],
      counts: noCounts(),
      issues: [{ file: '', line: 0, col: 0, message: err.message, code: err.code }],
    };
  }
  return writeValidation(result, opts.format, io);
}
