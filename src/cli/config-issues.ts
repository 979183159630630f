/**
 * Config problems as text: "file:line:col: message" lines and the closing
 * "N errors." line. validate prints them in every format; plan, apply,
 * refresh and import print them when their run tells its config's problems.
 */
import type { ConfigIssue } from '../config/index.js';
import { isRuleCode } from '../review/index.js';
import { cutEchoes } from './errors.js';
import type { CommandIO } from './io.js';
import { flagWords } from './run-words.js';

/**
 * An issue in the command line's words: one that names a setting (its
 * `wording`) names it by its flag, and is shown without the wording.
 */
export function flagIssue(issue: ConfigIssue): ConfigIssue {
  if (!issue.wording) return issue;
  const { wording, ...shown } = issue;
  return { ...shown, message: flagWords(wording) };
}

/**
 * "file:line:col: message", "file: message" for whole-file errors, or the
 * message alone for command-line errors; a guardrail's finding ends with its
 * rule code, "[token-type-reserved]", the name tenantform.yaml sets it by.
 */
export function formatIssue(shown: ConfigIssue): string {
  const issue = flagIssue(shown);
  const message = isRuleCode(issue.code) ? `${issue.message} [${issue.code}]` : issue.message;
  if (!issue.file) return cutEchoes(message);
  if (issue.line <= 0) return cutEchoes(`${issue.file}: ${message}`);
  return cutEchoes(`${issue.file}:${issue.line}:${issue.col}: ${message}`);
}

/** "1 error." or "N errors.". */
export function errorCountLine(n: number): string {
  return `${n} ${n === 1 ? 'error' : 'errors'}.`;
}

/** Writes issues as text lines on stderr, then "N errors.". */
export function reportIssues(issues: readonly ConfigIssue[], io: CommandIO): void {
  io.stderr.write(issues.map((i) => formatIssue(i) + '\n').join('') + errorCountLine(issues.length) + '\n');
}
