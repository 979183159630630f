import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import type { Reference, ReferenceList } from './references.js';

/**
 * The tenant's applications (clients), read to check every `client_id:`
 * selector of a rate limit policy and for `explain --all-clients`. One read
 * of the whole list (the list cannot be filtered by id), with only the fields
 * tenantform uses. A selector with a Client ID Metadata Document URL
 * (`client_id:https://…`) names a client by the URL it fetches its metadata
 * from, which need not be registered as an application: it is not checked.
 */

const list: OperationDescriptor = {
  name: 'listClients',
  profile: 'full',
  method: 'GET',
  path: '/clients',
  params: {},
  scope: 'read:clients',
  response: 'clientList',
  success: [200],
  outcomes: {},
  pagination: 'offset',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'clients',
};

/** One application by its client_id (the service's read by id; the emulator serves it, tenantform does not send it). */
const get: OperationDescriptor = {
  name: 'getClient',
  profile: 'full',
  method: 'GET',
  path: '/clients/{id}',
  params: { id: 'client id' },
  scope: 'read:clients',
  response: 'client',
  success: [200],
  outcomes: {},
};

/** The fields read, the only ones tenantform uses. */
export const CLIENT_FIELDS = 'client_id,name,is_first_party,app_type';

const SELECTOR_PREFIX = 'client_id:';

/** The client id a consumer_selector names, or null (a group selector, or a CIMD document URL). */
export function selectedClientId(selector: unknown): string | null {
  if (typeof selector !== 'string' || !selector.startsWith(SELECTOR_PREFIX)) return null;
  const id = selector.slice(SELECTOR_PREFIX.length);
  return id === '' || id.startsWith('https://') ? null : id;
}

export const client = {
  name: 'client',
  title: { one: 'application', many: 'applications' },
  operations: { list, get },
  references: (desired) =>
    desired.flatMap((resource): Reference[] => {
      const key =
        resource.kind === 'rate_limit_policy'
          ? selectedClientId(resource.attributes.consumer_selector)
          : null;
      return key === null ? [] : [{ resource, key }];
    }),
  queries: () => [{ fields: CLIENT_FIELDS, include_fields: true }],
  fromLive: (item) => {
    const { client_id, name, app_type, is_first_party } = item as {
      client_id: string;
      name?: string;
      app_type?: string;
      is_first_party?: boolean;
    };
    return {
      key: client_id,
      ...(name !== undefined ? { name } : {}),
      attributes: {
        ...(app_type !== undefined ? { app_type } : {}),
        ...(is_first_party !== undefined ? { is_first_party } : {}),
      },
    };
  },
  unknown: {
    code: 'REFERENCE_UNKNOWN_CLIENT',
    message: (ref) => `consumer_selector client_id:${ref.key} names no application of the tenant`,
  },
} as const satisfies ReferenceList;
