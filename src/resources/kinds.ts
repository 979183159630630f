import type { Attributes, KindModule } from './kind.js';
import { operationsFor, pathParams } from './operations.js';
import { SHIPPED } from './shipped.js';

type Shipped = (typeof SHIPPED)[number];

/** The name of a kind: 'rate_limit_policy' | 'user_permission' | 'token_exchange_profile'. */
export type KindName = Shipped['name'];

/**
 * A config's counts (validate --format json): `files`; per kind its config
 * key; per grouped kind the plural of its owner (`users`), in KINDS order.
 */
export type ConfigCounts = { files: number } & {
  [
    K in Shipped['config']['key'] | Extract<Shipped['config'], { group: object }>['group']['owner']['many']
  ]: number;
};

/** A kind module as the code that makes resources of it sees it. */
export type Kind = KindModule<KindName>;

const kinds: readonly Kind[] = SHIPPED;
const byName = new Map<string, Kind>(kinds.map((k) => [k.name, k]));

/**
 * Every kind, in the order plans and state list them: the only list of kinds,
 * generated (shipped.ts, npm run gen:schemas) from the files of src/resources
 * that declare one.
 */
export const KINDS: readonly Kind[] = kinds;

export function kindOf(name: KindName): Kind {
  const kind = byName.get(name);
  if (!kind) throw new Error(`unknown resource kind ${name}`);
  return kind;
}

export function isKindName(value: string): value is KindName {
  return byName.has(value);
}

/** Index of a kind in KINDS, for stable ordering. */
export function kindOrder(name: KindName): number {
  return kinds.indexOf(kindOf(name));
}

/** The identity parts of a resource's attributes, in the kind's key order. */
export function identityOf(kind: KindModule, attributes: Attributes): string[] {
  return kind.identityFields.map((field) => String(attributes[field]));
}

/**
 * True when the kind's update operation can change every one of `changed`
 * (top-level attribute names); false when one of them is fixed at creation.
 */
export function canUpdate(kind: KindModule, changed: readonly string[]): boolean {
  const updatable = kind.updatable ?? [];
  return changed.length > 0 && changed.every((key) => updatable.includes(key));
}

/** The attributes of `changed` that the update operation cannot change, in the order given. */
export function fixedAttributes(kind: KindModule, changed: readonly string[]): string[] {
  const updatable = kind.updatable ?? [];
  return changed.filter((key) => !updatable.includes(key));
}

/**
 * The update request body for a change of `changed` (top-level attribute
 * names) to the values in `after`: only those attributes. The same change
 * gives the same body, so a re-sent update is idempotent.
 */
export function updateBody(kind: KindModule, after: Attributes, changed: readonly string[]): Attributes {
  const updatable = kind.updatable ?? [];
  const body: Attributes = {};
  for (const key of changed) {
    if (updatable.includes(key) && after[key] !== undefined) body[key] = after[key];
  }
  return body;
}

/**
 * What a read of the kind's resources is made per (API profile full): the
 * path parameters of its list, ['user_id'] for a kind read per user; none
 * for a kind read whole or not at all.
 */
export function readPer(kind: KindModule): string[] {
  return pathParams(operationsFor(kind, 'full').list?.path ?? '');
}

/**
 * Why the recorded settings of a resource of this kind are taken on trust
 * ("no read operation exists", under the spec profile), or null when the kind
 * can be read back.
 */
export function unverifiedReason(kind: KindModule): string | null {
  const ops = operationsFor(kind, 'spec');
  return ops.get || ops.list ? null : 'no read operation exists';
}

/** unverifiedReason when it is the same for every kind in `kinds` (null when they differ or can all be read). */
export function sharedUnverifiedReason(kinds: Iterable<KindModule>): string | null {
  const reasons = new Set([...kinds].map(unverifiedReason));
  return reasons.size === 1 ? [...reasons][0]! : null;
}
