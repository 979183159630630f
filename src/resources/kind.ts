import type { Attributes } from './attributes.js';
import type { KindOperations, OperationTable } from './operations.js';
import type { KindPeers } from './peers.js';

/**
 * What a kind module declares: everything about one kind of resource, in one
 * place. KINDS (kinds.ts) lists the modules; the config reader, counts and
 * messages, export, the saved-plan check, the reads of the tenant and the
 * kind enums of schemas/*.json (scripts/gen-kind-schemas.mjs) all work from
 * these declarations, so a new kind is one module (plus its API schemas and
 * its emulator module).
 */

export type { Attributes } from './attributes.js';

/** A word in its two numbers, for counts: { one: 'user', many: 'users' }. */
export interface Noun {
  one: string;
  many: string;
}

/**
 * The server id a kind's resources have, and how `import` names the
 * resource. What an id looks like is an API fact: the `id` property of the
 * create operation's response schema (isKindId, check.ts).
 */
export interface KindId {
  /** The id's shape in words, for an error about a wrong id. */
  description: string;
  /** Identity parts from the identity argument of `tenantform import KIND IDENTITY ID`, or the problem with it. */
  parseIdentity(text: string): string[] | { problem: string };
}

/**
 * Resources that share the value of one attribute are one config entry, which
 * names that value once and lists the rest: user permissions are
 * `{user_id, permissions: [{resource_server_identifier, permission_name}]}`.
 * The config reader splits an entry into resources, export and the saved-plan
 * check join resources back into entries, and config.schema.json declares
 * the entry, all from this.
 */
export interface KindGrouping {
  /** The attribute an entry names once: 'user_id'. */
  by: string;
  /** Its schema inside an entry (a JSON Schema object, written into config.schema.json). */
  byField: Readonly<Record<string, unknown>>;
  /** What an entry stands for: { one: 'user', many: 'users' }; `many` is also the key of their count (validate --format json). */
  owner: Noun;
  /** The key of the members' list in an entry: 'permissions'. */
  list: string;
  /** One member, in messages and summaries: { one: 'permission', many: 'permissions' }. */
  member: Noun;
}

/** How a kind appears in config files. */
export interface KindConfig {
  /** The top-level key of the kind's list: 'rate_limit_policies'. */
  key: string;
  /** The file `tenantform init` and `tenantform export` write the kind's list to: 'rate-limit-policies.yaml'. */
  file: string;
  /** The list's description in config.schema.json. */
  description: string;
  /**
   * The JSON Schema `$ref` of one list item ('rate-limit-policy-create-request.schema.json'),
   * or for a grouped kind of the members' list.
   */
  schema: string;
  /** Absent: one list item per resource, the item its attributes. */
  group?: KindGrouping;
  /** The example file `tenantform init` writes (the YAML after the `$schema` comment). */
  example: string;
}

/**
 * What every declaration of something on the tenant has, whether tenantform
 * manages it (a kind, KINDS) or only reads it to check the config's
 * references (a reference list, REFERENCE_LISTS): its name, its titles and
 * the API operations it has, as data. The emulator serves any declaration's
 * operations the same way.
 */
export interface Declaration<N extends string = string> {
  /** The name in addresses, plans and state, or of the list: 'rate_limit_policy', 'client'. */
  name: N;
  /** { one: 'rate limit policy', many: 'rate limit policies' }. */
  title: Noun;
  /** Every operation the real API has for it, each labelled with the smallest profile that offers it. */
  operations: OperationTable;
}

/**
 * One kind's behaviour: naming, identity, config side, ids, the API
 * operations it has and how its resources become request bodies and records.
 * The planner and executor are generic over these; which operations exist is data.
 */
export interface KindModule<N extends string = string> extends Declaration<N> {
  /** Names of the identity parts, in order. */
  identityFields: readonly string[];
  /** How one resource is named in a message, from its identity: 'rate limit policy a/b/c'. */
  describe(identity: readonly string[]): string;
  /**
   * Its short name where the kind is already said (a plan row leads with it):
   * a policy's consumer_selector, a permission's user and name, a profile's
   * subject_token_type.
   */
  label(identity: readonly string[]): string;
  config: KindConfig;
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
  /**
   * How the peers a team switches from write this kind (peers.ts): read by
   * `export --from-terraform` and `--from-deploy-cli`, and naming the kind in
   * `--format terraform-json` plans. Absent: no peer has it.
   */
  peers?: KindPeers;
}
