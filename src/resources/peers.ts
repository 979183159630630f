import type { Attributes } from './attributes.js';

/**
 * How the peers a team switches from (the Terraform auth0 provider, the
 * Auth0 Deploy CLI) write a kind's resources, declared by each kind module
 * (`peers`), so that `tenantform export --from-terraform` and
 * `--from-deploy-cli` read them, and `plan --format terraform-json` names a
 * kind as the provider does, without any other list of kinds. Pure: the
 * readers in src/config parse the files and say where a problem is.
 */

/** A path below the object a mapping was given: ['configuration', 0, 'limit']. */
export type PeerPath = (string | number)[];

/** Something a peer's resource lacks or holds wrongly, at `path` below what the mapping was given. */
export class PeerFieldError extends Error {
  constructor(
    readonly path: PeerPath,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An attribute a peer names by something other than its value: the Deploy
 * CLI names a profile's Action by its `name`, where the API takes its id.
 * The reader resolves it (with the tenant's list, or ids the user gives).
 */
export interface PeerReference {
  /** The attribute it fills: 'action_id'. */
  attribute: string;
  /** The reference list it is looked up in: 'actions'. */
  list: 'actions';
  /** The name the peer gave. */
  name: string;
  /** Where the name is, below the item. */
  path: PeerPath;
}

/** One resource of tenantform's from a peer's: its id on the tenant (null when the peer does not say) and attributes. */
export interface PeerResource {
  id: string | null;
  attributes: Attributes;
  /** Attributes still to be resolved from a name. */
  references?: PeerReference[];
}

/** A resource type of the Terraform auth0 provider that holds resources of a kind. */
export interface TerraformType {
  /** The provider's type name: 'auth0_rate_limit_policy'. */
  type: string;
  /**
   * Where the provider's docs and source say this mapping comes from (for a
   * reader of the declaration, and the fixture's notes).
   */
  source: string;
  /**
   * The resources of one instance, from its `attributes` object (Terraform
   * state format 4). Throws PeerFieldError for a missing or wrong field.
   * Copies only the fields tenantform manages: computed and sensitive values
   * of the provider are never read.
   */
  read(attributes: Readonly<Record<string, unknown>>): PeerResource[];
  /**
   * The provider's attribute values for one resource's attributes (the
   * reverse of `read`, without the id), for Terraform-shaped plans; declared
   * by the kind's first type.
   */
  write?(attributes: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

/** The Auth0 Deploy CLI's asset type that holds resources of a kind. */
export interface DeployCliAsset {
  /** Its key in the YAML file (tenant.yaml): 'rateLimitPolicies'. */
  key: string;
  /** Its folder in the directory form, one JSON file per item: 'rate-limit-policies'. */
  directory: string;
  source: string;
  /** The resource of one item (the Deploy CLI strips ids on export). Throws PeerFieldError. */
  read(item: Readonly<Record<string, unknown>>): PeerResource;
}

/** How the peers write a kind; `terraform[0]` is the type a tenantform resource is in Terraform-shaped plans. */
export interface KindPeers {
  terraform: readonly TerraformType[];
  deployCli?: DeployCliAsset;
}

/** The value at `key` of `object`, which must be a non-empty string. */
export function peerString(
  object: Readonly<Record<string, unknown>>,
  key: string,
  path: PeerPath = [],
): string {
  const value = object[key];
  if (value === undefined || value === null) throw new PeerFieldError([...path, key], `missing "${key}"`);
  if (typeof value !== 'string') throw new PeerFieldError([...path, key], `"${key}" must be a string`);
  if (value === '') throw new PeerFieldError([...path, key], `"${key}" is empty`);
  return value;
}

/** A string value the peer may leave empty or out (the provider stores an unset optional string as ""). */
export function optionalPeerString(
  object: Readonly<Record<string, unknown>>,
  key: string,
): string | undefined {
  const value = object[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new PeerFieldError([key], `"${key}" must be a string`);
  return value;
}

/** The value at `key`, which must be a JSON object. */
export function peerObject(
  object: Readonly<Record<string, unknown>>,
  key: string,
  path: PeerPath = [],
): Record<string, unknown> {
  const value = object[key];
  if (value === undefined || value === null) throw new PeerFieldError([...path, key], `missing "${key}"`);
  if (typeof value !== 'object' || Array.isArray(value))
    throw new PeerFieldError([...path, key], `"${key}" must be an object`);
  return value as Record<string, unknown>;
}

/** The value at `key`, which must be a list of objects. */
export function peerObjects(
  object: Readonly<Record<string, unknown>>,
  key: string,
): Record<string, unknown>[] {
  const value = object[key];
  if (value === undefined || value === null) throw new PeerFieldError([key], `missing "${key}"`);
  if (!Array.isArray(value)) throw new PeerFieldError([key], `"${key}" must be a list`);
  value.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new PeerFieldError([key, i], `"${key}[${i}]" must be an object`);
  });
  return value as Record<string, unknown>[];
}
