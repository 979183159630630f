import { configurationKeysByAction } from '../schemas/index.js';
import type { Attributes, KindModule } from './kind.js';
import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import { PeerFieldError, peerObject, peerObjects, peerString, type KindPeers } from './peers.js';

/**
 * Rate limit policies: created by POST, removed by DELETE by id. Under the
 * spec profile there is no update, so a change is a replace (delete, then
 * create); the full profile adds PATCH of the configuration (the identity
 * fields cannot change), a list (checkpoint pages) and a get. Attributes are
 * the create request body {resource, consumer, consumer_selector, configuration}.
 */

const create: OperationDescriptor = {
  name: 'createRateLimitPolicy',
  profile: 'spec',
  method: 'POST',
  path: '/rate-limit-policies',
  params: {},
  scope: 'create:rate_limit_policies',
  request: 'rateLimitPolicyCreateRequest',
  response: 'rateLimitPolicy',
  success: [201],
  outcomes: { 409: 'present' },
};

const remove: OperationDescriptor = {
  name: 'deleteRateLimitPolicy',
  profile: 'spec',
  method: 'DELETE',
  path: '/rate-limit-policies/{id}',
  params: { id: 'rate limit policy id' },
  scope: 'delete:rate_limit_policies',
  success: [204],
  outcomes: { 404: 'gone' },
};

const update: OperationDescriptor = {
  name: 'updateRateLimitPolicy',
  profile: 'full',
  method: 'PATCH',
  path: '/rate-limit-policies/{id}',
  params: { id: 'rate limit policy id' },
  scope: 'update:rate_limit_policies',
  request: 'rateLimitPolicyUpdateRequest',
  response: 'rateLimitPolicy',
  success: [200],
  outcomes: { 404: 'gone' },
};

const list: OperationDescriptor = {
  name: 'listRateLimitPolicies',
  profile: 'full',
  method: 'GET',
  path: '/rate-limit-policies',
  params: {},
  scope: 'read:rate_limit_policies',
  response: 'rateLimitPolicyList',
  success: [200],
  outcomes: {},
  pagination: 'checkpoint',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'rate_limit_policies',
  filters: ['resource', 'consumer', 'consumer_selector'],
};

const get: OperationDescriptor = {
  name: 'getRateLimitPolicy',
  profile: 'full',
  method: 'GET',
  path: '/rate-limit-policies/{id}',
  params: { id: 'rate limit policy id' },
  scope: 'read:rate_limit_policies',
  response: 'rateLimitPolicy',
  success: [200],
  outcomes: { 404: 'gone' },
};

const EXAMPLE = `#
# Rate limit policies protect the authentication API. A policy is identified by
# resource + consumer + consumer_selector; the API cannot update a policy, so a
# change here is applied by deleting the policy and creating it again.
#
# consumer_selector: default | third_party_clients | cimd_clients
#                    | client_id:<client id> | client_id:<CIMD document https URL>
# configuration.action: allow | block | log (with limit) | redirect (with limit and redirect_uri)
# limit: requests per second, 0 to 10000.
rate_limit_policies:
  # Every client that no other policy targets.
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration:
      action: block
      limit: 100

  # Apps built by third parties: log when they go over, do not block yet.
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: third_party_clients
    configuration:
      action: log
      limit: 20
`;

/**
 * The fields of a configuration its action allows, from a peer that keeps
 * every field (the provider stores an unset `limit` as 0 and an unset
 * `redirect_uri` as ""): allow has no limit, block and log no redirect_uri.
 */
function configurationOf(source: Readonly<Record<string, unknown>>, path: (string | number)[]): Attributes {
  const action = peerString(source, 'action', path);
  const allowed = configurationKeysByAction().get(action) ?? ['action', 'limit', 'redirect_uri'];
  const configuration: Attributes = { action };
  for (const key of allowed) {
    const value = source[key];
    if (key !== 'action' && value !== undefined && value !== null && value !== '') configuration[key] = value;
  }
  return configuration;
}

/**
 * A live configuration (read tolerantly: the answer may carry fields
 * tenantform does not know) as the config would write it: only the fields its
 * action's variant defines. What else the service sends is not managed, so it
 * is neither recorded nor exported, and never shows as a change.
 */
function known(configuration: Attributes): Attributes {
  const allowed = configurationKeysByAction().get(String(configuration.action)) ?? ['action'];
  return Object.fromEntries(
    allowed.filter((key) => configuration[key] !== undefined).map((key) => [key, configuration[key]]),
  );
}

/** The identity fields and configuration of a policy as the API and both peers name them. */
function policyAttributes(item: Readonly<Record<string, unknown>>, configuration: Attributes): Attributes {
  return {
    resource: peerString(item, 'resource'),
    consumer: peerString(item, 'consumer'),
    consumer_selector: peerString(item, 'consumer_selector'),
    configuration,
  };
}

const PEERS: KindPeers = {
  terraform: [
    {
      type: 'auth0_rate_limit_policy',
      source:
        'terraform-provider-auth0 internal/auth0/ratelimitpolicy (resource.go, flatten.go): configuration is a block list of at most one',
      read(attributes) {
        const blocks = peerObjects(attributes, 'configuration');
        if (blocks.length !== 1)
          throw new PeerFieldError(
            ['configuration'],
            `"configuration" must hold one block (it holds ${blocks.length})`,
          );
        const id = peerString(attributes, 'id');
        return [
          { id, attributes: policyAttributes(attributes, configurationOf(blocks[0]!, ['configuration', 0])) },
        ];
      },
      write: ({ resource, consumer, consumer_selector, configuration }) => {
        const { action, limit, redirect_uri } = configuration as Attributes;
        return {
          resource,
          consumer,
          consumer_selector,
          configuration: [{ action, limit: limit ?? null, redirect_uri: redirect_uri ?? null }],
        };
      },
    },
  ],
  deployCli: {
    key: 'rateLimitPolicies',
    directory: 'rate-limit-policies',
    source:
      'auth0-deploy-cli src/tools/auth0/handlers/rateLimitPolicies.ts (schema), src/context/{yaml,directory}/handlers/rateLimitPolicies.ts (id, created_at, updated_at stripped on export)',
    read(item) {
      const configuration = configurationOf(peerObject(item, 'configuration'), ['configuration']);
      return { id: null, attributes: policyAttributes(item, configuration) };
    },
  },
};

export const rateLimitPolicy = {
  name: 'rate_limit_policy',
  title: { one: 'rate limit policy', many: 'rate limit policies' },
  identityFields: ['resource', 'consumer', 'consumer_selector'],
  describe: (identity) => `rate limit policy ${identity.join('/')}`,
  label: (identity) => identity[2] ?? identity.join('/'),
  config: {
    key: 'rate_limit_policies',
    file: 'rate-limit-policies.yaml',
    description:
      'Rate limit policies protecting the authentication API. Identity: resource + consumer + consumer_selector.',
    schema: 'rate-limit-policy-create-request.schema.json',
    example: EXAMPLE,
  },
  id: {
    description: 'rlp_ followed by up to 22 letters, digits, _ or -',
    parseIdentity(text) {
      const [resource, consumer, ...rest] = text.split('/');
      if (!resource || !consumer || rest.length === 0) {
        return {
          problem: `rate limit policy identity must be resource/consumer/consumer_selector, e.g. oauth_authentication_api/client/default (got "${text}")`,
        };
      }
      return [resource, consumer, rest.join('/')];
    },
  },
  operations: { create, update, delete: remove, list, get },
  requestBody: (resources: readonly Attributes[]) => resources[0],
  fromResponse: (body) => createdFields(body),
  updatable: ['configuration'],
  fromLive: (item) => {
    const { id, resource, consumer, consumer_selector, configuration } = item as Attributes & {
      id: string;
      configuration: Attributes;
    };
    return { id, attributes: { resource, consumer, consumer_selector, configuration: known(configuration) } };
  },
  limitation:
    'rate limit policies have no update operation; a change deletes the policy and creates it again',
  peers: PEERS,
} as const satisfies KindModule;

/** The id and created_at of a created object (already checked against the response schema). */
export function createdFields(body: unknown): { id: string; created_at?: string } {
  const { id, created_at } = body as { id: string; created_at?: string };
  return created_at ? { id, created_at } : { id };
}
