/**
 * The guardrails in the commands: which settings a run has (tenantform.yaml,
 * the environment's over the project's, and --strict), the findings as
 * config issues (errors) and warnings, printed at file:line:col with their
 * rule code. validate runs the config rules; plan and apply run them after
 * loading the config and the plan rules after planning: an error stops the
 * command there, before anything is written or sent.
 */
import { compareIssues, type ConfigIssue } from '../config/index.js';
import type { Plan } from '../plan/types.js';
import type { DesiredResource } from '../resources/index.js';
import {
  checkChanges,
  checkConfig,
  DEFAULT_SETTINGS,
  findingMessage,
  type Finding,
  type GuardrailSettings,
} from '../review/index.js';
import { formatIssue, errorCountLine } from './config-issues.js';
import type { ConfigInput } from './inputs.js';
import type { CommandIO } from './io.js';

/** The settings of one run: its environment's guardrails (if any), and --strict. */
export function runSettings(input: ConfigInput, strict: boolean | undefined): GuardrailSettings {
  const base = input.environment?.guardrails ?? DEFAULT_SETTINGS;
  return strict ? { ...base, strict: true } : base;
}

/** A finding as a config issue: its position, its sentence, its rule code as `code`. */
export function findingIssue(finding: Finding): ConfigIssue {
  const s = finding.source;
  return {
    file: s?.file ?? '',
    line: s?.line ?? 0,
    col: s?.col ?? 0,
    message: findingMessage(finding),
    code: finding.rule,
  };
}

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

/**
 * Splits findings: errors stop the command (printed on stderr with "N
 * errors.", and the way to change a rule), warnings go on. Returns the
 * warnings, or null when there was an error.
 */
function stopOnErrors(findings: readonly Finding[], io: CommandIO): Finding[] | null {
  const errors = findings
    .filter((f) => f.severity === 'error')
    .map(findingIssue)
    .sort(compareIssues);
  if (errors.length === 0) return findings.filter((f) => f.severity === 'warning');
  io.stderr.write(
    errors.map((i) => formatIssue(i) + '\n').join('') +
      errorCountLine(errors.length) +
      '\nNothing was sent. A rule can be set to warning or off in tenantform.yaml (guardrails.rules); see docs/reviewing-policy-changes.md.\n',
  );
  return null;
}

/** plan and apply, after loading the config: the config rules' warnings, or null (printed) on an error. */
export function reviewConfig(
  desired: readonly DesiredResource[],
  settings: GuardrailSettings,
  io: CommandIO,
): Finding[] | null {
  return stopOnErrors(checkConfig(desired, settings), io);
}

/**
 * plan and apply, after planning: the plan with every warning (the config
 * rules' and the plan rules') as its findings, or null (printed) on an error.
 */
export function reviewPlan(
  plan: Plan,
  configWarnings: readonly Finding[],
  settings: GuardrailSettings,
  io: CommandIO,
): Plan | null {
  const warnings = stopOnErrors(checkChanges(plan.changes, settings), io);
  return warnings ? { ...plan, findings: [...configWarnings, ...warnings] } : null;
}

/**
 * apply PLANFILE --strict: the plan's warnings (recorded when it was made)
 * are errors now; null (printed) when it has any.
 */
export function strictSavedPlan(plan: Plan, strict: boolean | undefined, io: CommandIO): Plan | null {
  if (!strict) return plan;
  const findings = (plan.findings ?? []).map((f) => ({ ...f, severity: 'error' as const }));
  return stopOnErrors(findings, io) ? plan : null;
}
