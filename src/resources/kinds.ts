import type { Attributes, KindModule, KindName } from './types.js';

export const rateLimitPolicy: KindModule = {
  name: 'rate_limit_policy',
  configKey: 'rate_limit_policies',
  title: 'rate limit policy',
  identityFields: ['resource', 'consumer', 'consumer_selector'],
  canDelete: true,
  hasId: true,
  onChange: 'replace',
  limitation:
    'rate limit policies have no update operation; a change deletes the policy and creates it again',
};

export const userPermission: KindModule = {
  name: 'user_permission',
  configKey: 'user_permissions',
  title: 'user permission',
  identityFields: ['user_id', 'resource_server_identifier', 'permission_name'],
  canDelete: false,
  hasId: false,
  onChange: 'blocked',
  limitation: 'the API has no operation to remove a permission from a user',
};

export const tokenExchangeProfile: KindModule = {
  name: 'token_exchange_profile',
  configKey: 'token_exchange_profiles',
  title: 'token exchange profile',
  identityFields: ['subject_token_type'],
  canDelete: false,
  hasId: true,
  onChange: 'blocked',
  limitation: 'the API has no operation to update or delete a token exchange profile',
};

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

/** Index of a kind in KINDS, for stable ordering. */
export function kindOrder(name: KindName): number {
  return KINDS.findIndex((k) => k.name === name);
}
