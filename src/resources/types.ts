import type { Attributes } from './kind.js';
import type { KindName } from './kinds.js';

/**
 * Resource model shared by every stage: the desired side (from config) and the
 * recorded side (from state) use the same identity and address scheme.
 */

/** 1-based line and column of a YAML node, with the file path as the user gave it. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** One resource the config asks for. */
export interface DesiredResource {
  kind: KindName;
  /** Stable, parseable address: kind["part1","part2"] (see formatAddress). */
  address: string;
  /** The identity parts, in the kind's key order. */
  identity: string[];
  /** What the create request carries for this resource (see each kind module). */
  attributes: Attributes;
  /** Where in the config the resource is declared. */
  source?: SourcePosition;
}

/** One resource tenantform has recorded as present on the tenant. */
export interface RecordedResource {
  kind: KindName;
  address: string;
  identity: string[];
  /** The attributes last sent (or, for an adopted resource, the ones desired when it was adopted). */
  attributes: Attributes;
  /** Server id from the 201 response or `import`; null when unknown (adopted) or the kind has none. */
  id: string | null;
  /** Present because a create answered 409: it existed already, its settings were not verified. */
  adopted?: boolean;
  /** Server's created_at when the response carried one. */
  created_at?: string;
}
