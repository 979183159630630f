/**
 * Resources: the kinds tenantform manages, one module per kind
 * (rate-limit-policy.ts, user-permission.ts, token-exchange-profile.ts), each
 * declaring everything about its kind (kind.ts: naming, identity, config side,
 * example, ids, operations, live mapping), listed once in KINDS (kinds.ts);
 * identities and addresses; and the API operations each kind has, as data
 * (operations.ts), per API profile (operationsFor: 'spec' or 'full'). Owns:
 * what a resource is, how it is named, which operations exist and what they
 * look like on the wire. Also the read-only reference lists (references.ts,
 * REFERENCE_LISTS: the tenant's applications, Actions and APIs, read only to
 * check the config's references to them; never planned, applied or stored).
 * Does not own: reading config (config/), deciding changes (plan/), sending
 * requests (api/) or ordering them (apply/).
 *
 * Attributes per kind (desired and recorded alike):
 * - rate_limit_policy: the create request body {resource, consumer, consumer_selector, configuration}
 * - user_permission: {user_id, resource_server_identifier, permission_name} (one per permission;
 *   the executor batches them per user into one POST)
 * - token_exchange_profile: the create request body {name, subject_token_type, action_id, type}
 *
 * Each kind also declares how the peers a team switches from write it
 * (peers.ts: the Terraform provider's resource types, the Deploy CLI's asset).
 */
export type { DesiredResource, RecordedResource, SourcePosition } from './types.js';
export type { Attributes, Declaration, KindConfig, KindGrouping, KindId, KindModule, Noun } from './kind.js';
export type {
  ApiProfile,
  ExpectedOutcome,
  HttpMethod,
  KindOperations,
  ListQuery,
  OperationDescriptor,
  OperationTable,
  Pagination,
} from './operations.js';
export {
  API_PROFILES,
  descriptorsOf,
  isApiProfile,
  LIST_PAGE_SIZE,
  needsId,
  operationsFor,
  paramsFor,
  pathParams,
  profileIncludes,
} from './operations.js';
export { attributeProblems, configSchemaPasses, idProblem, isKindId } from './check.js';
export { printable } from './printable.js';
export { AddressError, formatAddress, parseAddress } from './address.js';
export type { ConfigCounts, Kind, KindName } from './kinds.js';
export {
  canUpdate,
  fixedAttributes,
  identityOf,
  isKindName,
  kindOf,
  kindOrder,
  KINDS,
  readPer,
  sharedUnverifiedReason,
  unverifiedReason,
  updateBody,
} from './kinds.js';
export type { LiveRead, LiveResource, LiveSnapshot } from './live-snapshot.js';
export type {
  DeployCliAsset,
  KindPeers,
  PeerPath,
  PeerReference,
  PeerResource,
  TerraformType,
} from './peers.js';
export { PeerFieldError } from './peers.js';
export { liveResource, snapshotCovers } from './live-snapshot.js';
export { rateLimitPolicy } from './rate-limit-policy.js';
export { tokenExchangeProfile } from './token-exchange-profile.js';
export { userPermission } from './user-permission.js';
export type {
  Reference,
  ReferenceItem,
  ReferenceList,
  ReferenceQuery,
  ReferenceRead,
  ReferenceRule,
} from './references.js';
export { referencedKeys } from './references.js';
export type { KnownName, KnownNames } from './known-names.js';
export {
  knownNamesDocument,
  knownNamesOf,
  mergeKnownNames,
  noKnownNames,
  parseKnownNames,
} from './known-names.js';
export { REFERENCE_LISTS } from './reference-lists.js';
export { client, CLIENT_FIELDS, selectedClientId } from './client.js';
export { logEvent } from './log-event.js';
export { action, TOKEN_EXCHANGE_TRIGGER } from './action.js';
export { IDENTIFIERS_PER_REQUEST, resourceServer } from './resource-server.js';
export {
  joined,
  plainName,
  plainText,
  setting,
  words,
  wordingOf,
  wordingOrMessage,
  type Setting,
  type SettingNames,
  type SettingRef,
  type Wording,
} from './settings.js';
