import type { KindOperations } from './operations.js';

/**
 * Resource model shared by every stage: the desired side (from config) and the
 * recorded side (from state) use the same identity and address scheme.
 */

export type KindName = 'rate_limit_policy' | 'user_permission' | 'token_exchange_profile';

/** JSON-compatible attribute map: exactly what a create request sends (see each kind). */
export type Attributes = { [key: string]: unknown };

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

/** The server id a kind's resources have: how it looks, and how `import` names the resource. */
export interface KindId {
  /** Name of the id's format in schemas/formats.cjs. */
  format: string;
  /** The format in words, for an error about a wrong id. */
  description: string;
  /** Identity parts from the identity argument of `tenantform import KIND IDENTITY ID`, or the problem with it. */
  parseIdentity(text: string): string[] | { problem: string };
}

/**
 * One kind's behaviour: naming, identity, ids, the API operations it has and
 * how its resources become request bodies and records. The planner and
 * executor are generic over these; which operations exist is data.
 */
export interface KindModule {
  name: KindName;
  /** Top-level key in the config file. */
  configKey: 'rate_limit_policies' | 'user_permissions' | 'token_exchange_profiles';
  /** Singular human title: "rate limit policy". */
  title: string;
  /** Names of the identity parts, in order. */
  identityFields: readonly string[];
  /** The server id of this kind, or null when its resources have none. */
  id: KindId | null;
  /**
   * Every operation the real API has for this kind, each labelled with the
   * smallest profile that offers it. Read it through operationsFor(kind, profile).
   */
  operations: KindOperations;
  /** The create request body for these resources' attributes (several when the create is batched). */
  requestBody(resources: readonly Attributes[]): unknown;
  /** What to record from a create's success body: the server id (null when none) and created_at. */
  fromResponse(body: unknown): { id: string | null; created_at?: string };
  /**
   * The id and attributes of one item of a read answer (already checked
   * against the read's response schema); `params` are the read's path
   * parameters (a user's permissions: { user_id }).
   */
  fromLive(
    item: unknown,
    params: Readonly<Record<string, string>>,
  ): { id: string | null; attributes: Attributes };
  /** What the spec profile's API cannot do for this kind, for the plan's reason text. */
  limitation: string;
  /**
   * The attributes the kind's update operation can change (API profile full);
   * a change to any other attribute needs a replace. Absent: no update.
   */
  updatable?: readonly string[];
}
