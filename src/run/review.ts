/**
 * The config and the guardrails as a run takes them: the config loaded (its
 * problems an event), the settings of the run (the environment's guardrails,
 * strict), and the findings split: errors stop the run (an event), warnings
 * go with the plan.
 */
import type { ConfigIssue } from '../config/index.js';
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
import type { ConfigInput, RunIO } from './requests.js';
import { loadInputConfig } from './load-config.js';
import type { RunView } from './view.js';

/** The settings of one run: its environment's guardrails (if any), and strict. */
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

/**
 * What the config asks for, loaded with `vars` (null: a destroy, which reads
 * no config); null when it has problems (told to `view`).
 */
export async function loadDesired(
  input: ConfigInput,
  vars: Record<string, string> | null,
  io: Pick<RunIO, 'env' | 'cwd' | 'signal'>,
  view: Pick<RunView, 'event'>,
): Promise<DesiredResource[] | null> {
  if (vars === null) return [];
  const result = await loadInputConfig(input, vars, io);
  if (result.issues.length === 0) return result.desired;
  view.event({ kind: 'config-issues', issues: result.issues });
  return null;
}

/** The warnings among `findings`, or null when there is an error (the errors told to `view`). */
function stopOnErrors(findings: readonly Finding[], view: Pick<RunView, 'event'>): Finding[] | null {
  const errors = findings.filter((f) => f.severity === 'error');
  if (errors.length === 0) return findings.filter((f) => f.severity === 'warning');
  view.event({ kind: 'guardrail-errors', findings: errors });
  return null;
}

/** After loading the config: the config rules' warnings, or null (told) on an error. */
export function reviewConfig(
  desired: readonly DesiredResource[],
  settings: GuardrailSettings,
  view: Pick<RunView, 'event'>,
): Finding[] | null {
  return stopOnErrors(checkConfig(desired, settings), view);
}

/** After planning: the plan with every warning (the config rules' and the plan rules') as its findings, or null (told). */
export function reviewPlan(
  plan: Plan,
  configWarnings: readonly Finding[],
  settings: GuardrailSettings,
  view: Pick<RunView, 'event'>,
): Plan | null {
  const warnings = stopOnErrors(checkChanges(plan.changes, settings), view);
  return warnings ? { ...plan, findings: [...configWarnings, ...warnings] } : null;
}

/** A saved plan applied strictly: the warnings recorded when it was made are errors now; null (told) when it has any. */
export function strictSavedPlan(plan: Plan, strict: boolean, view: Pick<RunView, 'event'>): Plan | null {
  if (!strict) return plan;
  const findings = (plan.findings ?? []).map((f) => ({ ...f, severity: 'error' as const }));
  return stopOnErrors(findings, view) ? plan : null;
}

/** The config and its rules: the desired resources, the settings and the warnings; null when stopped (told). */
export async function loadReviewed(
  input: ConfigInput,
  vars: Record<string, string> | null,
  strict: boolean,
  io: RunIO,
  view: Pick<RunView, 'event'>,
) {
  const desired = await loadDesired(input, vars, io, view);
  if (!desired) return null;
  const settings = runSettings(input, strict);
  const configWarnings = reviewConfig(desired, settings, view);
  return configWarnings ? { desired, settings, configWarnings } : null;
}
