import { formatAddress, kindOf, needsId, operationsFor, type ApiProfile } from '../resources/index.js';
import { assertNever, SUMMARY_KEYS } from './actions.js';
import { summarize } from './planner.js';
import type { Change, Plan, PlanSummary } from './types.js';

/**
 * Consistency checks a schema cannot express. A saved plan is applied exactly,
 * so a hand-edited or damaged one must not reach the executor: every change
 * must carry what its action needs, and the summary must match the changes.
 */

function actionProblem(change: Change, api: ApiProfile): string | null {
  const kind = kindOf(change.kind);
  const ops = operationsFor(kind, api);
  const remove = ops.delete;
  switch (change.action) {
    case 'create':
      return change.after ? null : 'a create needs "after"';
    case 'update':
      if (!ops.update) return `a ${kind.title.one} cannot be updated under API profile ${api}`;
      if (!change.before || !change.after) return 'an update needs "before" and "after"';
      return change.id || !needsId(ops.update) ? null : 'an update needs the recorded id';
    case 'delete':
      if (!remove) return `a ${kind.title.one} cannot be deleted under API profile ${api}`;
      if (!change.before) return 'a delete needs "before"';
      return change.id || !needsId(remove) ? null : 'a delete needs the recorded id';
    case 'replace':
      if (!remove) return `a ${kind.title.one} cannot be replaced under API profile ${api}`;
      if (!change.before || !change.after) return 'a replace needs "before" and "after"';
      return change.id || !needsId(remove) ? null : 'a replace needs the recorded id';
    case 'forget':
      return change.before ? null : 'a forget needs "before"';
    case 'no-op':
      return change.after ? null : 'a no-op needs "after"';
    case 'blocked':
      return null;
    default:
      return assertNever(change.action);
  }
}

function sameSummary(a: PlanSummary, b: PlanSummary): boolean {
  return SUMMARY_KEYS.every((key) => a[key] === b[key]);
}

/** Problems found in a schema-valid plan, as "changes[i] (address): what is wrong"; empty when consistent. */
export function planProblems(plan: Plan): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  plan.changes.forEach((change, i) => {
    const where = `changes[${i}] (${change.address})`;
    const kind = kindOf(change.kind);
    if (change.identity.length !== kind.identityFields.length) {
      problems.push(`${where}: a ${kind.title.one} identity has ${kind.identityFields.length} part(s)`);
    } else if (formatAddress(change.kind, change.identity) !== change.address) {
      problems.push(`${where}: the address does not match kind and identity`);
    }
    if (seen.has(change.address)) problems.push(`${where}: the address appears more than once`);
    seen.add(change.address);
    const problem = actionProblem(change, plan.api);
    if (problem) problems.push(`${where}: ${problem}`);
  });
  const targets = plan.targets ? new Set(plan.targets) : null;
  plan.changes.forEach((change, i) => {
    if (targets && !targets.has(change.address))
      problems.push(`changes[${i}] (${change.address}): not among the plan's targets`);
    if (
      plan.destroy &&
      change.action !== 'delete' &&
      change.action !== 'forget' &&
      change.action !== 'blocked'
    )
      problems.push(`changes[${i}] (${change.address}): a destroy plan only deletes and forgets`);
  });
  if (!sameSummary(plan.summary, summarize(plan.changes))) {
    problems.push('summary: the counts do not match the changes');
  }
  return problems;
}
