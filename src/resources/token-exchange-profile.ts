import type { Attributes, KindModule } from './kind.js';
import { createdFields } from './rate-limit-policy.js';
import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import { optionalPeerString, peerString, type KindPeers } from './peers.js';

/**
 * Token exchange profiles: created by POST. Under the spec profile there is
 * no update or delete, so a change is blocked and a removal is a forget; the
 * full profile adds PATCH of name and subject_token_type (action_id and type
 * cannot change, so changing them is a replace), DELETE by id, a list
 * (checkpoint pages) and a get. Attributes are the create request body
 * {name, subject_token_type, action_id, type}.
 */

const create: OperationDescriptor = {
  name: 'createTokenExchangeProfile',
  profile: 'spec',
  method: 'POST',
  path: '/token-exchange-profiles',
  params: {},
  scope: 'create:token_exchange_profiles',
  request: 'tokenExchangeProfileCreateRequest',
  response: 'tokenExchangeProfile',
  success: [201],
  outcomes: { 409: 'present' },
};

/**
 * The service answers 200 with the whole updated profile (observed); the
 * SDK's type says 204 with no body. The body is not read (the recorded
 * attributes are the ones sent), so either is success. A subject_token_type
 * another profile has is a 409, an error.
 */
const update: OperationDescriptor = {
  name: 'updateTokenExchangeProfile',
  profile: 'full',
  method: 'PATCH',
  path: '/token-exchange-profiles/{id}',
  params: { id: 'token exchange profile id' },
  scope: 'update:token_exchange_profiles',
  request: 'tokenExchangeProfileUpdateRequest',
  success: [200, 204],
  outcomes: { 404: 'gone' },
};

/** A profile already gone answers 204 too (observed); a 404 means the same. */
const remove: OperationDescriptor = {
  name: 'deleteTokenExchangeProfile',
  profile: 'full',
  method: 'DELETE',
  path: '/token-exchange-profiles/{id}',
  params: { id: 'token exchange profile id' },
  scope: 'delete:token_exchange_profiles',
  success: [204],
  outcomes: { 404: 'gone' },
};

const list: OperationDescriptor = {
  name: 'listTokenExchangeProfiles',
  profile: 'full',
  method: 'GET',
  path: '/token-exchange-profiles',
  params: {},
  scope: 'read:token_exchange_profiles',
  response: 'tokenExchangeProfileList',
  success: [200],
  outcomes: {},
  pagination: 'checkpoint',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'token_exchange_profiles',
};

const get: OperationDescriptor = {
  name: 'getTokenExchangeProfile',
  profile: 'full',
  method: 'GET',
  path: '/token-exchange-profiles/{id}',
  params: { id: 'token exchange profile id' },
  scope: 'read:token_exchange_profiles',
  response: 'tokenExchangeProfile',
  success: [200],
  outcomes: { 404: 'gone' },
};

const EXAMPLE = `#
# A token exchange profile runs a Custom Token Exchange action when a token
# exchange request carries its subject_token_type. The API cannot change or
# delete a profile once created: the plan shows such edits as blocked.
token_exchange_profiles:
  - name: Partner SSO # 3 to 50 characters
    subject_token_type: urn:example:partner-token # a URI, 8 to 100 characters
    action_id: 00000000-0000-4000-8000-000000000000 # replace with your action's id
    type: custom_authentication
`;

const PEERS: KindPeers = {
  terraform: [
    {
      type: 'auth0_token_exchange_profile',
      source:
        'terraform-provider-auth0 internal/auth0/tokenexchangeprofile (resource.go, flatten.go): name required; subject_token_type, action_id and type optional there, required by the API',
      read: (attributes) => [
        {
          id: peerString(attributes, 'id'),
          attributes: {
            name: peerString(attributes, 'name'),
            subject_token_type: peerString(attributes, 'subject_token_type'),
            action_id: peerString(attributes, 'action_id'),
            type: peerString(attributes, 'type'),
          },
        },
      ],
      write: ({ name, subject_token_type, action_id, type }) => ({
        name,
        subject_token_type,
        action_id,
        type,
      }),
    },
  ],
  deployCli: {
    key: 'tokenExchangeProfiles',
    directory: 'token-exchange-profiles',
    source:
      'auth0-deploy-cli src/tools/auth0/handlers/tokenExchangeProfiles.ts: exports the Action by `action` (its name), keeping `action_id` only when no Action of that id was found',
    read(item) {
      const attributes = {
        name: peerString(item, 'name'),
        subject_token_type: peerString(item, 'subject_token_type'),
        type: peerString(item, 'type'),
      };
      const actionId = optionalPeerString(item, 'action_id');
      if (actionId !== undefined) return { id: null, attributes: { ...attributes, action_id: actionId } };
      const name = peerString(item, 'action');
      return {
        id: null,
        attributes,
        references: [{ attribute: 'action_id', list: 'actions', name, path: ['action'] }],
      };
    },
  },
};

export const tokenExchangeProfile = {
  name: 'token_exchange_profile',
  title: { one: 'token exchange profile', many: 'token exchange profiles' },
  identityFields: ['subject_token_type'],
  describe: ([type]) => `token exchange profile for subject_token_type ${type}`,
  label: ([type]) => type ?? '',
  config: {
    key: 'token_exchange_profiles',
    file: 'token-exchange-profiles.yaml',
    description: 'Token exchange profiles. Identity: subject_token_type.',
    schema: 'token-exchange-profile-create-request.schema.json',
    example: EXAMPLE,
  },
  id: {
    description: 'tep_ followed by letters, digits, _ or -',
    parseIdentity: (text) => [text],
  },
  operations: { create, update, delete: remove, list, get },
  requestBody: (resources: readonly Attributes[]) => resources[0],
  fromResponse: (body) => createdFields(body),
  updatable: ['name', 'subject_token_type'],
  fromLive: (item) => {
    const { id, name, subject_token_type, action_id, type } = item as Attributes & { id: string };
    return { id, attributes: { name, subject_token_type, action_id, type } };
  },
  limitation: 'the API has no operation to update or delete a token exchange profile',
  peers: PEERS,
} as const satisfies KindModule;
