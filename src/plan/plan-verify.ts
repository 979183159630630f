import { attributeProblems, kindOf, type RecordedResource } from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import { deepEqual } from './canonical.js';
import { PlanError } from './errors.js';
import { setting, words } from '../resources/settings.js';
import { planResource, summarize } from './planner.js';
import { selectChanges } from './selection.js';
import type { Change, Plan } from './types.js';

/**
 * A saved plan crosses CI jobs as a file. Its seal (plan-seal.ts, keyed by
 * the state's plan key) refuses any edit by someone who cannot read the
 * state; this check stands behind it, for a plan sealed by someone who can:
 * apply trusts a saved plan for one thing only, the desired attributes
 * (`after`), and checks even those: every other field must be what the
 * planner derives from `after` and the current state, and `after` must name
 * the resource of its address and pass the request schema.
 */

const MAX_LISTED = 10;

function quote(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/** Differences between a saved change and the one the planner makes from its `after` and the state. */
function recordProblems(change: Change, expected: Change, record: RecordedResource | undefined): string[] {
  const problems: string[] = [];
  if (!deepEqual(change.before, expected.before)) {
    problems.push(
      record
        ? change.before === null
          ? 'before is null but the state records this resource'
          : 'before differs from the record in the state'
        : 'before is set but the state records nothing at this address',
    );
  }
  if (change.id !== expected.id) {
    problems.push(
      expected.id === null
        ? `id ${quote(change.id)} is not in the state (it records no id for this resource)`
        : `id ${quote(change.id)} is not the id the state records for this resource (${expected.id})`,
    );
  }
  if (change.adopted !== expected.adopted) {
    problems.push(`adopted is ${String(change.adopted)} but the state says ${String(expected.adopted)}`);
  }
  if (change.action !== expected.action) {
    problems.push(`action is ${change.action} but this after and the state give ${expected.action}`);
  }
  return problems;
}

/**
 * Checks a saved plan against the state it will be applied to (the caller has
 * already checked lineage and serial) and returns the plan to execute: each
 * change as the planner makes it from the saved `after` and the state's record,
 * so ids, `before`, `adopted`, actions and reasons all come from the state and
 * the planner, never from the file. Throws PlanError PLAN_MISMATCH, listing
 * each change and what disagrees, when the file says anything else.
 */
export function verifySavedPlan(plan: Plan, doc: StateDocument | null, fileName: string): Plan {
  const records = new Map((doc?.resources ?? []).map((r) => [r.address, r]));
  const problems: string[] = [];
  const changes: Change[] = [];
  plan.changes.forEach((change, i) => {
    const where = `changes[${i}] (${change.address})`;
    const record = records.get(change.address);
    const after = change.after;
    if (after === null && record === undefined) {
      problems.push(
        `${where}: the state records nothing at this address, so there is nothing to ${change.action}`,
      );
      return;
    }
    const bad = after === null ? [] : attributeProblems(kindOf(change.kind), change.identity, after, 'after');
    if (bad.length > 0) {
      problems.push(...bad.map((p) => `${where}: ${p}`));
      return;
    }
    const desired =
      after === null
        ? null
        : { kind: change.kind, address: change.address, identity: change.identity, attributes: after };
    // A replace of an unchanged resource (--replace) is only taken when plan would allow it.
    const forceReplace = change.action === 'replace' && desired !== null;
    if (forceReplace) {
      try {
        selectChanges([desired], record ? [record] : [], { replace: [change.address], api: plan.api });
      } catch (err) {
        if (!(err instanceof PlanError)) throw err;
        problems.push(`${where}: ${err.message}`);
        return;
      }
    }
    const expected = planResource(desired, record, {
      forceReplace,
      destroy: plan.destroy === true,
      api: plan.api,
    });
    const differ = recordProblems(change, expected, record);
    if (differ.length > 0) {
      problems.push(...differ.map((p) => `${where}: ${p}`));
      return;
    }
    changes.push({ ...expected, source: change.source });
  });
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_LISTED).map((p) => `  ${p}`);
    if (problems.length > MAX_LISTED) listed.push(`  … and ${problems.length - MAX_LISTED} more`);
    throw new PlanError(
      words`${fileName} does not match the state it would be applied to; nothing was sent:\n${listed.join('\n')}\nA saved plan must be applied as tenantform plan ${setting('out')} wrote it; make the plan again.`,
      'PLAN_MISMATCH',
    );
  }
  return { ...plan, changes, summary: summarize(changes) };
}
