import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import { chunks, type Reference, type ReferenceList } from './references.js';

/**
 * The tenant's APIs (resource servers), read to check every user permission:
 * its `resource_server_identifier` names an API, and its `permission_name`
 * is among the permissions that API defines (`scopes[].value`). Only the APIs
 * the config names are read, by identifier: the list takes at most 10
 * `identifiers` a request (SDK), so one paged read per 10.
 */

const list: OperationDescriptor = {
  name: 'listResourceServers',
  profile: 'full',
  method: 'GET',
  path: '/resource-servers',
  params: {},
  scope: 'read:resource_servers',
  response: 'resourceServerList',
  success: [200],
  outcomes: {},
  pagination: 'offset',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'resource_servers',
};

/**
 * One API by its id or its identifier (the service's read by id; the
 * emulator serves it, tenantform does not send it).
 */
const get: OperationDescriptor = {
  name: 'getResourceServer',
  profile: 'full',
  method: 'GET',
  path: '/resource-servers/{id}',
  params: { id: 'resource server id or identifier' },
  scope: 'read:resource_servers',
  response: 'resourceServer',
  success: [200],
  outcomes: {},
};

/** The most `identifiers` one request of the list takes. */
export const IDENTIFIERS_PER_REQUEST = 10;

export const resourceServer = {
  name: 'resource_server',
  title: { one: 'API', many: 'APIs' },
  operations: { list, get },
  references: (desired) =>
    desired.flatMap((resource): Reference[] => {
      const { resource_server_identifier: key, permission_name: member } = resource.attributes;
      return resource.kind === 'user_permission' && typeof key === 'string' && typeof member === 'string'
        ? [{ resource, key, member }]
        : [];
    }),
  queries: (keys) =>
    keys === null ? [{}] : chunks(keys, IDENTIFIERS_PER_REQUEST).map((identifiers) => ({ identifiers })),
  fromLive: (item) => {
    const { id, identifier, name, scopes } = item as {
      id?: string;
      identifier: string;
      name?: string;
      scopes?: { value: string }[];
    };
    return {
      key: identifier,
      ...(name !== undefined ? { name } : {}),
      members: (scopes ?? []).map((s) => s.value),
      attributes: id !== undefined ? { id } : {},
    };
  },
  unknown: {
    code: 'REFERENCE_UNKNOWN_RESOURCE_SERVER',
    message: (ref) => `resource_server_identifier ${ref.key} names no API (resource server) of the tenant`,
  },
  unknownMember: {
    code: 'REFERENCE_UNKNOWN_PERMISSION',
    message: (ref, item) =>
      `permission_name ${ref.member ?? ''} is not a permission of the API ${ref.key}${item.name ? ` (${item.name})` : ''}`,
  },
} as const satisfies ReferenceList;
