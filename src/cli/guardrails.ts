/**
 * The guardrails' findings in the commands: as config issues (errors) and
 * warnings, printed at file:line:col with their rule code. Which settings a
 * run has and which findings stop it is src/run/review.ts's (plan, apply)
 * and validate's own.
 */
import { compareIssues, type ConfigIssue } from '../config/index.js';
import type { Finding } from '../review/index.js';
import { formatIssue, errorCountLine } from './config-issues.js';
import type { CommandIO } from './io.js';

import { findingIssue } from '../run/review.js';

/** "file:line:col: warning: message [rule]". */
export function warningLine(issue: ConfigIssue): string {
  return formatIssue({ ...issue, message: `warning: ${issue.message}` });
}

/** "1 warning." or "N warnings.". */
export function warningCountLine(n: number): string {
  return `${n} ${n === 1 ? 'warning' : 'warnings'}.`;
}

/** Writes warnings on stderr, then "N warnings."; nothing when there are none. */
export function reportWarnings(issues: readonly ConfigIssue[], io: CommandIO): void {
  if (issues.length === 0) return;
  io.stderr.write(issues.map((i) => warningLine(i) + '\n').join('') + warningCountLine(issues.length) + '\n');
}

/** Guardrail errors on stderr, sorted, with "N errors." and the way to change a rule. */
export function reportGuardrailErrors(findings: readonly Finding[], io: CommandIO): void {
  const errors = findings.map(findingIssue).sort(compareIssues);
  io.stderr.write(
    errors.map((i) => formatIssue(i) + '\n').join('') +
      errorCountLine(errors.length) +
      '\nNothing was sent. A rule can be set to warning or off in tenantform.yaml (guardrails.rules); see docs/reviewing-policy-changes.md.\n',
  );
}
