import type { Attributes, Declaration } from './kind.js';
import type { ListQuery, OperationDescriptor } from './operations.js';
import type { DesiredResource } from './types.js';

/**
 * Read-only reference lists: what a tenant holds that tenantform never
 * manages, but that the config refers to — its applications (a policy's
 * `client_id:` selector), its Actions (a profile's `action_id`) and its APIs
 * (a permission's resource server and permission name). A list is read (API
 * profile full) only to check those references before anything is written.
 * It is never planned, applied or stored in state, so it is not a kind: it is
 * a Declaration (name, titles, operations) with a `list` operation (and the
 * service's `get` of one item) and nothing else of a kind, listed in REFERENCE_LISTS (reference-lists.ts), the
 * only list of them. The reads (src/api), the checks (src/plan
 * checkReferences) and the emulator's routes all work from the declaration,
 * so a new reference list is one declaration (plus its response schemas and
 * its emulator module).
 */

/** One item of a reference list, as the checks and `explain` see it. */
export interface ReferenceItem {
  /** What the config names it by: an application's client_id, an Action's id, an API's identifier. */
  key: string;
  /** Its name on the tenant, when the list gives one. */
  name?: string;
  /** What a reference may name inside it: the permissions an API defines. */
  members?: readonly string[];
  /** What else the list says of it that tenantform reads (an application's app_type and is_first_party). */
  attributes: Attributes;
}

/** One reference in the config to an item of a list. */
export interface Reference {
  /** The desired resource that holds it (its address and source position name it in a message). */
  resource: DesiredResource;
  /** The key of the item it names. */
  key: string;
  /** A member the item must have (a permission of the API), if any. */
  member?: string;
}

/** A problem a check can report: a stable code and the sentence for one reference. */
export interface ReferenceRule<A extends unknown[]> {
  code: string;
  message(ref: Reference, ...rest: A): string;
}

export interface ReferenceList<N extends string = string> extends Declaration<N> {
  /** The list the reads use; and the read of one item by its key, which the emulator serves (tenantform reads lists only). */
  operations: { list: OperationDescriptor; get?: OperationDescriptor };
  /** The references `desired` holds to items of this list, in the order given. */
  references(desired: readonly DesiredResource[]): Reference[];
  /**
   * The query of each read that covers `keys` (the distinct keys referred to,
   * sorted; null: every item): the list's fixed parameters and, for a list
   * filtered by key, the keys, as many per read as one request takes. One
   * entry is one paged read.
   */
  queries(keys: readonly string[] | null): ListQuery[];
  /** One item of a read answer (already checked against the response schema). */
  fromLive(item: unknown): ReferenceItem;
  /** False for an item listed but that a reference may not name (an Action bound to another trigger). Default: true. */
  usable?(item: ReferenceItem): boolean;
  /** A reference no usable item has the key of. */
  unknown: ReferenceRule<[]>;
  /** A reference whose item lacks its member. */
  unknownMember?: ReferenceRule<[item: ReferenceItem]>;
}

/** The reads of one list that cover the config's references: the query of each (one paged read each). */
export interface ReferenceQuery {
  list: ReferenceList;
  queries: ListQuery[];
}

/** What a read of the reference lists found: the items of each list read, by list name; a list not read is absent. */
export interface ReferenceRead {
  items: Readonly<Record<string, readonly ReferenceItem[]>>;
  /**
   * The lists the tenant refused to list (403: the token lacks the list's
   * read scope), by list name → that scope; such a list is absent from
   * `items`, so its references are not checked. Absent when none was refused.
   */
  denied?: Readonly<Record<string, string>>;
}

/** The distinct keys of `refs`, sorted. */
export function referencedKeys(refs: readonly Reference[]): string[] {
  return [...new Set(refs.map((r) => r.key))].sort();
}

/** `values` in runs of at most `size`. */
export function chunks<T>(values: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}
