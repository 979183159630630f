import {
  kindOrder,
  snapshotCovers,
  type Attributes,
  type DesiredResource,
  type KindName,
  type LiveSnapshot,
  type RecordedResource,
} from '../resources/index.js';
import { STATE_FORMAT_VERSION, type StateDocument } from '../state/types.js';
import { changedPaths, compareStrings, deepEqual } from './canonical.js';
import { planChanges } from './planner.js';
import type { PlanOptions } from './selection.js';
import type { Drift, Plan } from './types.js';

export type { Drift, DriftKind } from './types.js';

/** One record the refresh changes, in the shape the state session journals. */
export type RefreshEntry = { op: 'put'; resource: RecordedResource } | { op: 'remove'; address: string };

export interface Refresh {
  /** The recorded resources as the tenant has them now (the state with `entries` applied), sorted by address. */
  resources: RecordedResource[];
  /** What to record so that the stored state says the same as `resources`. */
  entries: RefreshEntry[];
  /** Per resource, what changed outside tenantform; kind order, then address. */
  drift: Drift[];
}

function byKindThenAddress(a: { kind: KindName; address: string }, b: { kind: KindName; address: string }) {
  return kindOrder(a.kind) - kindOrder(b.kind) || compareStrings(a.address, b.address);
}

/** The record of a live resource: its id and live settings, verified (so not flagged adopted). */
function verified(
  base: Omit<RecordedResource, 'attributes' | 'id'>,
  live: { attributes: Attributes; id: string | null },
) {
  const { adopted: _adopted, ...rest } = base as RecordedResource;
  const record: RecordedResource = { ...rest, attributes: live.attributes, id: live.id };
  return record;
}

/**
 * Brings the recorded state up to date with a read of the tenant and says
 * what drifted. A recorded resource whose list was not read (a user whose
 * permissions were not read) is kept as it is. Records that gain an id or
 * lose the adopted flag (their settings are now verified) are rewritten
 * without counting as drift.
 */
export function refreshState(
  doc: StateDocument | null,
  live: LiveSnapshot,
  desired: readonly DesiredResource[],
): Refresh {
  const recorded = doc?.resources ?? [];
  const liveByAddress = new Map(live.resources.map((r) => [r.address, r]));
  const wanted = new Set(desired.map((d) => d.address));
  const known = new Set(recorded.map((r) => r.address));
  const resources: RecordedResource[] = [];
  const entries: RefreshEntry[] = [];
  const drift: Drift[] = [];

  for (const record of recorded) {
    const found = liveByAddress.get(record.address);
    if (!found) {
      if (!snapshotCovers(live, record)) {
        resources.push(record);
        continue;
      }
      entries.push({ op: 'remove', address: record.address });
      drift.push({
        address: record.address,
        kind: record.kind,
        identity: record.identity,
        drift: 'deleted',
        id: record.id,
        recorded: record.attributes,
        live: null,
        fields: [],
        desired: wanted.has(record.address),
      });
      continue;
    }
    const fields = changedPaths(record.attributes, found.attributes);
    if (record.id !== null && found.id !== null && record.id !== found.id) fields.unshift('id');
    const updated = verified(record, found);
    resources.push(updated);
    if (fields.length > 0) {
      drift.push({
        address: record.address,
        kind: record.kind,
        identity: record.identity,
        drift: 'changed',
        id: found.id,
        recorded: record.attributes,
        live: found.attributes,
        fields,
        desired: wanted.has(record.address),
      });
    }
    if (!deepEqual(updated, record)) entries.push({ op: 'put', resource: updated });
  }

  for (const found of live.resources) {
    if (known.has(found.address)) continue;
    const isDesired = wanted.has(found.address);
    drift.push({
      address: found.address,
      kind: found.kind,
      identity: found.identity,
      drift: 'unmanaged',
      id: found.id,
      recorded: null,
      live: found.attributes,
      fields: [],
      desired: isDesired,
    });
    if (!isDesired) continue;
    const record = verified({ kind: found.kind, address: found.address, identity: found.identity }, found);
    resources.push(record);
    entries.push({ op: 'put', resource: record });
  }

  resources.sort((a, b) => compareStrings(a.address, b.address));
  drift.sort(byKindThenAddress);
  return { resources, entries, drift };
}

/**
 * planChanges against what is live: the state brought up to date with the
 * read (refreshState), the drift kept in the plan. The plan still names the
 * stored state (lineage, serial) it was made from.
 */
export function planRefreshed(
  desired: readonly DesiredResource[],
  doc: StateDocument | null,
  live: LiveSnapshot,
  options: PlanOptions = {},
): { plan: Plan; refresh: Refresh } {
  const refresh = refreshState(doc, live, desired);
  const base: StateDocument = doc
    ? { ...doc, resources: refresh.resources }
    : { format_version: STATE_FORMAT_VERSION, lineage: '', serial: 0, resources: refresh.resources };
  const plan = planChanges(desired, base, options);
  return {
    plan: {
      ...plan,
      state: { lineage: doc?.lineage ?? null, serial: doc?.serial ?? 0 },
      drift: refresh.drift,
    },
    refresh,
  };
}
