/**
 * Resources: the kinds tenantform manages, their identities and addresses.
 * Owns: what a resource is and how it is named. Does not own: reading config
 * (config/), deciding changes (plan/) or talking to the API (api/, apply/).
 *
 * Attributes per kind (desired and recorded alike):
 * - rate_limit_policy: the create request body {resource, consumer, consumer_selector, configuration}
 * - user_permission: {user_id, resource_server_identifier, permission_name} (one per permission;
 *   the executor batches them per user into one POST)
 * - token_exchange_profile: the create request body {name, subject_token_type, action_id, type}
 */
export type {
  Attributes,
  DesiredResource,
  KindModule,
  KindName,
  RecordedResource,
  SourcePosition,
} from './types.js';
export { AddressError, formatAddress, isKindName, KIND_NAMES, parseAddress } from './address.js';
export {
  identityOf,
  kindOf,
  kindOrder,
  KINDS,
  rateLimitPolicy,
  tokenExchangeProfile,
  userPermission,
} from './kinds.js';
