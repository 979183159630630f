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
  /** What the create request carries for this resource: exactly its body (for a permission, user_id too). */
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

/** What a kind declares; the planner and executor are generic over these. */
export interface KindModule {
  name: KindName;
  /** Top-level key in the config file. */
  configKey: 'rate_limit_policies' | 'user_permissions' | 'token_exchange_profiles';
  /** Singular human title: "rate limit policy". */
  title: string;
  /** Names of the identity parts, in order. */
  identityFields: readonly string[];
  /** Whether the API can delete it (and so whether a removal is a delete or a forget). */
  canDelete: boolean;
  /** Whether a create answers with an id worth recording. */
  hasId: boolean;
  /** What a change to a non-identity attribute needs: replace (delete then create) or nothing can do it. */
  onChange: 'replace' | 'blocked';
  /** Why a change is blocked or a removal is a forget, for the plan's reason text. */
  limitation: string;
}
