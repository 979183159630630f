/**
 * Names beside ids: what the tenant calls the applications, Actions and APIs
 * a plan's changes refer to, taken from a read of the tenant's reference
 * lists (now, or kept beside the state from the last reads: KnownNames), and
 * a change's label with them (`Mobile app (client_id:Vb4n…)`). Display
 * only: a plan's changes never depend on them.
 * Names are tenant data: every name shown passes through tenantText.
 */
import {
  REFERENCE_LISTS,
  type Attributes,
  type DesiredResource,
  type KindName,
  type KnownNames,
} from '../resources/index.js';
import { tenantText } from './tenant-text.js';
import type { Plan, PlanNames } from './types.js';

interface Referring {
  kind: KindName;
  address: string;
  before: Attributes | null;
  after: Attributes | null;
}

/** The items a change refers to: each reference list's keys in its attributes (after, else before). */
function referencesOf(change: Referring): { list: string; title: string; key: string }[] {
  const attributes = change.after ?? change.before;
  if (!attributes) return [];
  const resource = { kind: change.kind, address: change.address, attributes } as DesiredResource;
  return REFERENCE_LISTS.flatMap((list) =>
    list.references([resource]).map((ref) => ({ list: list.name, title: list.title.one, key: ref.key })),
  );
}

/**
 * The names, from `known` (a read of the tenant now, or kept from the last
 * ones), of the items `changes` refer to, with when the oldest of them was
 * read; undefined when none is known (then a plan carries no names at all).
 */
export function namesOf(changes: readonly Referring[], known: KnownNames | null): PlanNames | undefined {
  if (!known) return undefined;
  const items: Record<string, Record<string, string>> = {};
  let readAt: string | undefined;
  for (const change of changes) {
    for (const ref of referencesOf(change)) {
      const name = known.lists[ref.list]?.[ref.key];
      if (name === undefined) continue;
      (items[ref.list] ??= {})[ref.key] = name.name;
      if (readAt === undefined || Date.parse(name.read_at) < Date.parse(readAt)) readAt = name.read_at;
    }
  }
  if (readAt === undefined) return undefined;
  const sorted = Object.fromEntries(
    Object.keys(items)
      .sort()
      .map((list) => [
        list,
        Object.fromEntries(Object.entries(items[list]!).sort(([a], [b]) => (a < b ? -1 : 1))),
      ]),
  );
  return { read_at: readAt, items: sorted };
}

/**
 * The line that says where the names shown come from: "Names as the tenant
 * gave them on 2026-03-04 at 05:06 UTC." (the oldest of them), or null for a
 * plan without names.
 */
export function namesNote(plan: Pick<Plan, 'names'>): string | null {
  if (!plan.names) return null;
  const at = new Date(plan.names.read_at);
  if (Number.isNaN(at.getTime())) return null;
  const iso = at.toISOString();
  return `Names of applications, Actions and APIs as the tenant gave them on ${iso.slice(0, 10)} at ${iso.slice(11, 16)} UTC.`;
}

/** One named item a change refers to, as plan JSON lists it. */
export interface NamedReference {
  list: string;
  key: string;
  name: string;
}

/** The items of `change` that `names` names, in reference-list order. */
export function namedReferences(change: Referring, names: PlanNames | undefined): NamedReference[] {
  if (!names) return [];
  return referencesOf(change).flatMap((ref) => {
    const name = names.items[ref.list]?.[ref.key];
    return name === undefined ? [] : [{ list: ref.list, key: ref.key, name }];
  });
}

/** An id cut for a label once a name says which item it is: `Vb4nM7qW0eR3tY` → `Vb4n…`. */
function shortKey(key: string): string {
  return key.length > 8 ? `${key.slice(0, 4)}…` : key;
}

/** A label's parts once names are known: the name of the item it names, the label (its id cut), the others named. */
export interface LabelParts {
  /** The name of the item the label itself names (an application's, for a client_id: selector). */
  lead?: string;
  label: string;
  /** "Action: Partner exchange", "API: Reports API": the other items named. */
  others: string[];
}

/** A change's label split for showing with the names of what it refers to (each name escaped). */
export function labelParts(change: Referring, label: string, names: PlanNames | undefined): LabelParts {
  if (!names) return { label, others: [] };
  const parts: LabelParts = { label, others: [] };
  for (const ref of referencesOf(change)) {
    const name = names.items[ref.list]?.[ref.key];
    if (name === undefined) continue;
    const shown = tenantText(name);
    if (parts.lead === undefined && label.includes(ref.key)) {
      parts.lead = shown;
      parts.label = label.replace(ref.key, shortKey(ref.key));
    } else parts.others.push(`${ref.title.charAt(0).toUpperCase()}${ref.title.slice(1)}: ${shown}`);
  }
  return parts;
}

/**
 * A change's label with the names of what it refers to: the item the label
 * names itself first, its id cut (`Mobile app (client_id:Vb4n…)`); another
 * after it (`urn:partner:token (Action: Partner exchange)`). The label as it
 * is when no name is known.
 */
export function namedLabel(parts: LabelParts): string {
  const head = parts.lead === undefined ? parts.label : `${parts.lead} (${parts.label})`;
  return parts.others.length > 0 ? `${head} (${parts.others.join(', ')})` : head;
}
