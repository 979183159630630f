import { canUpdate, fixedAttributes, kindOf, kindOrder, needsId, operationsFor } from '../resources/index.js';
import type { ApiProfile, DesiredResource, RecordedResource } from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import { changedPaths, compareStrings, deepEqual } from './canonical.js';
import { PlanError } from './errors.js';
import { reasonText } from './reasons.js';
import { selectChanges, type PlanOptions } from './selection.js';
import { ACTION_INFO, emptySummary } from './actions.js';
import {
  PLAN_FORMAT_VERSION,
  type Change,
  type Plan,
  type PlanReason,
  type PlanSummary,
  type ReasonCode,
} from './types.js';
import { setting, words } from '../resources/settings.js';

type Decision = Pick<Change, 'action' | 'reason'>;

/** The codes whose reasons carry no data. */
type PlainCode = {
  [R in PlanReason as R['code']]: Exclude<keyof R, 'code'> extends never ? R['code'] : never;
}[ReasonCode];

/**
 * The reasons that carry no data, one frozen object each, shared by every
 * change that has one: a plan of 100,000 changes (mostly creates and
 * no-ops) would otherwise hold as many copies. Never mutate a reason.
 */
const PLAIN: { readonly [C in PlainCode]: Extract<PlanReason, { code: C }> } = Object.freeze({
  create: Object.freeze({ code: 'create' }),
  'no-op': Object.freeze({ code: 'no-op' }),
  'replace-by-request': Object.freeze({ code: 'replace-by-request' }),
  'delete-because-no-config': Object.freeze({ code: 'delete-because-no-config' }),
  'delete-without-id': Object.freeze({ code: 'delete-without-id' }),
  'forget-because-cannot-delete': Object.freeze({ code: 'forget-because-cannot-delete' }),
  destroy: Object.freeze({ code: 'destroy' }),
  'destroy-without-id': Object.freeze({ code: 'destroy-without-id' }),
  'destroy-forget': Object.freeze({ code: 'destroy-forget' }),
});

/**
 * The action for a resource that is both desired and recorded. A change the
 * profile's update operation can make (every changed attribute updatable) is
 * an update when the record has the id it needs, else blocked. Any other
 * change is a replace (the kind's delete, then its create) when the profile
 * has a delete and the record has what the delete needs, else blocked.
 * `forceReplace` (--replace, checked by selectChanges) makes it a replace even when nothing changed.
 */
function decideKept(
  desired: DesiredResource,
  recorded: RecordedResource,
  forceReplace: boolean,
  api: ApiProfile,
): Decision {
  const kind = kindOf(desired.kind);
  if (deepEqual(desired.attributes, recorded.attributes)) {
    return forceReplace
      ? { action: 'replace', reason: PLAIN['replace-by-request'] }
      : { action: 'no-op', reason: PLAIN['no-op'] };
  }
  const paths = changedPaths(recorded.attributes, desired.attributes);
  const ops = operationsFor(kind, api);
  const replaceReason = (): PlanReason =>
    ops.update
      ? { code: 'replace-because-fixed', paths, fixed: fixedAttributes(kind, topLevel(paths)) }
      : { code: 'replace-because-cannot-update', paths };
  if (forceReplace) return { action: 'replace', reason: replaceReason() };
  if (ops.update && canUpdate(kind, topLevel(paths))) {
    if (recorded.id === null && needsId(ops.update)) {
      return { action: 'blocked', reason: { code: 'update-without-id', paths } };
    }
    return { action: 'update', reason: { code: 'update', paths } };
  }
  const remove = ops.delete;
  if (!remove) return { action: 'blocked', reason: { code: 'cannot-change', paths } };
  if (recorded.id === null && needsId(remove)) {
    return { action: 'blocked', reason: { code: 'replace-without-id', paths } };
  }
  return { action: 'replace', reason: replaceReason() };
}

/** The top-level attributes of dotted change paths ("configuration.limit" → "configuration"), once each. */
function topLevel(paths: readonly string[]): string[] {
  return [...new Set(paths.map((path) => path.split('.')[0]!))];
}

/** The top-level attributes an update changes, sorted: what its request body carries. */
export function updatedAttributes(change: Pick<Change, 'before' | 'after'>): string[] {
  return topLevel(changedPaths(change.before ?? {}, change.after ?? {}));
}

/** The action for a resource that is recorded but no longer desired (or being destroyed): delete it if the profile can delete the kind. */
function decideRemoved(recorded: RecordedResource, destroy: boolean, api: ApiProfile): Decision {
  const kind = kindOf(recorded.kind);
  const remove = operationsFor(kind, api).delete;
  if (!remove) {
    return {
      action: 'forget',
      reason: PLAIN[destroy ? 'destroy-forget' : 'forget-because-cannot-delete'],
    };
  }
  if (recorded.id === null && needsId(remove)) {
    return { action: 'blocked', reason: PLAIN[destroy ? 'destroy-without-id' : 'delete-without-id'] };
  }
  return { action: 'delete', reason: PLAIN[destroy ? 'destroy' : 'delete-because-no-config'] };
}

function byKindThenAddress(a: Change, b: Change): number {
  return kindOrder(a.kind) - kindOrder(b.kind) || compareStrings(a.address, b.address);
}

function describeSource(change: Change): string {
  const s = change.source;
  return s ? `${s.file}:${s.line}:${s.col}` : 'the configuration';
}

/** After sorting, equal addresses sit side by side: one pass finds any address planned twice. */
function assertUnique(sorted: readonly Change[]): void {
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a.address !== b.address) continue;
    throw new PlanError(
      `${b.address} is declared twice (${describeSource(a)} and ${describeSource(b)}); declare each resource once`,
      'PLAN_DUPLICATE_ADDRESS',
    );
  }
}

function kept(
  want: DesiredResource,
  have: RecordedResource | undefined,
  forceReplace: boolean,
  api: ApiProfile,
): Change {
  const decision = have
    ? decideKept(want, have, forceReplace, api)
    : { action: 'create' as const, reason: PLAIN.create };
  return {
    address: want.address,
    kind: want.kind,
    identity: want.identity,
    action: decision.action,
    before: have ? have.attributes : null,
    after: want.attributes,
    id: have ? have.id : null,
    adopted: have?.adopted === true,
    reason: decision.reason,
    source: want.source ?? null,
  };
}

function removed(have: RecordedResource, destroy: boolean, api: ApiProfile): Change {
  const decision = decideRemoved(have, destroy, api);
  return {
    address: have.address,
    kind: have.kind,
    identity: have.identity,
    action: decision.action,
    before: have.attributes,
    after: null,
    id: have.id,
    adopted: have.adopted === true,
    reason: decision.reason,
    source: null,
  };
}

/**
 * The change for one address: `desired` and `recorded` are the config's and
 * the state's resource there (at least one of them present). planChanges is
 * this for every address; a saved plan is checked against it.
 */
export function planResource(
  desired: DesiredResource | null,
  recorded: RecordedResource | undefined,
  options: { forceReplace?: boolean; destroy?: boolean; api?: ApiProfile } = {},
): Change {
  const api = options.api ?? 'spec';
  if (desired) return kept(desired, recorded, options.forceReplace === true, api);
  if (!recorded) throw new Error('internal: planResource needs a desired or a recorded resource');
  return removed(recorded, options.destroy === true, api);
}

/**
 * The reason of a saved change: a plan file keeps each reason worded (plan
 * JSON's `reason`), never its code, so reading one derives the code again
 * from the change's own before, after, id and adopted, as the planner gives
 * it (an unchanged replace is a --replace). For a change whose saved action
 * does not follow from those (an edited file, which apply refuses), the
 * plainest code of its action.
 */
export function savedReason(change: Omit<Change, 'reason'>, plan: Pick<Plan, 'api' | 'destroy'>): PlanReason {
  const { kind, address, identity, before, after } = change;
  const desired = after === null ? null : { kind, address, identity, attributes: after };
  const recorded =
    before === null
      ? undefined
      : { kind, address, identity, attributes: before, id: change.id, adopted: change.adopted };
  const destroy = plan.destroy === true;
  if (desired || recorded) {
    const replanned = planResource(desired, recorded, {
      forceReplace: change.action === 'replace',
      destroy,
      api: plan.api,
    });
    if (replanned.action === change.action) return replanned.reason;
  }
  const paths = before && after ? changedPaths(before, after) : [];
  const fallback: Record<Change['action'], PlanReason> = {
    create: { code: 'create' },
    'no-op': { code: 'no-op' },
    update: { code: 'update', paths },
    replace:
      paths.length > 0 ? { code: 'replace-because-cannot-update', paths } : { code: 'replace-by-request' },
    delete: { code: destroy ? 'destroy' : 'delete-because-no-config' },
    forget: { code: destroy ? 'destroy-forget' : 'forget-because-cannot-delete' },
    blocked: after
      ? { code: 'cannot-change', paths }
      : { code: destroy ? 'destroy-without-id' : 'delete-without-id' },
  };
  return fallback[change.action];
}

/**
 * Compares what the config asks for with what the state recorded and decides,
 * per resource, what apply must do. Pure: no I/O, no clock, no randomness; the
 * same inputs (in any order) give the same plan. The plan shares attribute
 * objects with its inputs: callers must not mutate either afterwards.
 *
 * Options (see PlanOptions): `targets` limits the plan to those resources and
 * marks it partial; `replace` forces a replace; `destroy` ignores `desired` and
 * plans the removal of everything recorded; `api` is the tenant's API profile
 * (default 'spec'): which operations the plan may use.
 *
 * Throws PlanError PLAN_DUPLICATE_ADDRESS when an address is desired or recorded
 * twice; PLAN_UNKNOWN_TARGET and PLAN_REPLACE_REFUSED (see selectChanges).
 */
export function planChanges(
  desired: readonly DesiredResource[],
  recorded: StateDocument | null,
  options: PlanOptions = {},
): Plan {
  const resources = recorded?.resources ?? [];
  const destroy = options.destroy === true;
  const api = options.api ?? 'spec';
  const wanted = destroy ? [] : desired;
  const indexByAddress = new Map<string, number>();
  for (let i = 0; i < resources.length; i++) {
    const address = resources[i]!.address;
    if (indexByAddress.has(address)) {
      throw new PlanError(
        `the state records ${address} twice; the state is inconsistent, inspect it with tenantform state list`,
        'PLAN_DUPLICATE_ADDRESS',
      );
    }
    indexByAddress.set(address, i);
  }
  const matched = new Uint8Array(resources.length);
  const selection = selectChanges(wanted, resources, options);
  let changes: Change[] = [];
  for (const want of wanted) {
    const index = indexByAddress.get(want.address);
    if (index !== undefined) matched[index] = 1;
    const have = index === undefined ? undefined : resources[index];
    changes.push(kept(want, have, selection.replace.has(want.address), api));
  }
  for (let i = 0; i < resources.length; i++)
    if (matched[i] === 0) changes.push(removed(resources[i]!, destroy, api));

  changes.sort(byKindThenAddress);
  assertUnique(changes);
  if (selection.targets) {
    const targeted = new Set(selection.targets);
    changes = changes.filter((change) => targeted.has(change.address));
  }
  return {
    format_version: PLAN_FORMAT_VERSION,
    api,
    state: { lineage: recorded?.lineage ?? null, serial: recorded?.serial ?? 0 },
    ...(selection.targets ? { targets: selection.targets } : {}),
    ...(destroy ? { destroy: true as const } : {}),
    changes,
    summary: summarize(changes),
  };
}

/** Counts changes per action. */
export function summarize(changes: readonly Change[]): PlanSummary {
  const summary = emptySummary();
  for (const change of changes) summary[ACTION_INFO[change.action].summaryKey]++;
  return summary;
}

/** True when the plan holds anything but no-ops (blocked changes count: they need attention). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((change) => change.action !== 'no-op');
}

/**
 * The changes apply performs, in plan order: creates, updates, deletes, replaces and forgets.
 * Throws PlanError PLAN_BLOCKED when the plan has blocked changes, unless skipBlocked.
 */
export function applicableChanges(plan: Plan, options: { skipBlocked?: boolean } = {}): Change[] {
  const blocked = plan.changes.filter((change) => change.action === 'blocked');
  if (blocked.length > 0 && !options.skipBlocked) {
    const list = blocked.map((change) => `  ${change.address}: ${reasonText(change)}`).join('\n');
    throw new PlanError(
      words`${blocked.length} change${blocked.length === 1 ? ' is' : 's are'} blocked and cannot be applied:\n${list}\nResolve them, or pass ${setting('skipBlocked')} to apply everything else.`,
      'PLAN_BLOCKED',
    );
  }
  return plan.changes.filter((change) => ACTION_INFO[change.action].applied);
}
