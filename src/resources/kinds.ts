import { operationsFor } from './operations.js';
import { rateLimitPolicy } from './rate-limit-policy.js';
import { tokenExchangeProfile } from './token-exchange-profile.js';
import type { Attributes, KindModule, KindName } from './types.js';
import { userPermission } from './user-permission.js';

/** Every kind, in the order plans and state list them. */
export const KINDS: readonly KindModule[] = [rateLimitPolicy, userPermission, tokenExchangeProfile];

const byName = new Map(KINDS.map((k) => [k.name, k]));

export function kindOf(name: KindName): KindModule {
  const kind = byName.get(name);
  if (!kind) throw new Error(`unknown resource kind ${name}`);
  return kind;
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

/** Index of a kind in KINDS, for stable ordering. */
export function kindOrder(name: KindName): number {
  return KINDS.findIndex((k) => k.name === name);
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
