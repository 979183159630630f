import { formatAddress } from './address.js';
import type { Attributes } from './kind.js';
import { identityOf, kindOf, type KindName } from './kinds.js';

/**
 * What a read of the tenant found (API profile full): the resources its list
 * operations returned, and which lists were read. Plain data: the CLI reads it
 * (src/api) and hands it to the planner (src/plan), which compares it with the
 * state without any I/O.
 */

/** One resource as the tenant reports it, in the same attribute shape as desired and recorded ones. */
export interface LiveResource {
  kind: KindName;
  address: string;
  identity: string[];
  attributes: Attributes;
  /** The server id; null for kinds without one (permissions). */
  id: string | null;
}

/**
 * One list read to its last page: the kind and the path parameters it was
 * read with (a user's permissions: { user_id }; policies and profiles: none).
 */
export interface LiveRead {
  kind: KindName;
  params: Readonly<Record<string, string>>;
}

export interface LiveSnapshot {
  reads: LiveRead[];
  resources: LiveResource[];
}

/** A live resource of `kind` from its attributes and id. */
export function liveResource(kind: KindName, attributes: Attributes, id: string | null): LiveResource {
  const identity = identityOf(kindOf(kind), attributes);
  return { kind, address: formatAddress(kind, identity), identity, attributes, id };
}

/**
 * True when the snapshot read the list that would hold this resource: a read
 * of its kind whose every path parameter equals the resource's attribute of
 * that name. A covered resource missing from the snapshot is gone from the
 * tenant; an uncovered one is simply unknown.
 */
export function snapshotCovers(
  snapshot: Pick<LiveSnapshot, 'reads'>,
  resource: { kind: KindName; attributes: Attributes },
): boolean {
  return snapshot.reads.some(
    (read) =>
      read.kind === resource.kind &&
      Object.entries(read.params).every(([name, value]) => String(resource.attributes[name]) === value),
  );
}
