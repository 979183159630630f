import type { OperationDescriptor } from './operations.js';
import type { Reference, ReferenceList } from './references.js';

/**
 * The tenant's Actions, read to check every token exchange profile's
 * `action_id`: the service runs a profile's Action only when it is deployed
 * and bound to the `custom-token-exchange` trigger, and refuses a profile
 * whose Action is not. One read of the Actions the service lists for that
 * trigger, deployed ones only (the list's own filters), so an Action that
 * does not exist, is not deployed or is bound to another trigger is missing
 * from it alike.
 */

/** The trigger a token exchange profile's Action must be bound to. */
export const TOKEN_EXCHANGE_TRIGGER = 'custom-token-exchange';

const list: OperationDescriptor = {
  name: 'listActions',
  profile: 'full',
  method: 'GET',
  path: '/actions/actions',
  params: {},
  scope: 'read:actions',
  response: 'actionList',
  success: [200],
  outcomes: {},
  pagination: 'offset',
  totals: 'always',
  // 20 a page unless asked (SDK); 100, the most any offset list of the API takes.
  pageSize: { default: 20, max: 100 },
  itemsKey: 'actions',
};

/** One Action by its id (the service's read by id; the emulator serves it, tenantform does not send it). */
const get: OperationDescriptor = {
  name: 'getAction',
  profile: 'full',
  method: 'GET',
  path: '/actions/actions/{id}',
  params: { id: 'action id' },
  scope: 'read:actions',
  response: 'action',
  success: [200],
  outcomes: {},
};

export const action = {
  name: 'action',
  title: { one: 'action', many: 'actions' },
  operations: { list, get },
  references: (desired) =>
    desired.flatMap((resource): Reference[] =>
      resource.kind === 'token_exchange_profile' && typeof resource.attributes.action_id === 'string'
        ? [{ resource, key: resource.attributes.action_id }]
        : [],
    ),
  queries: () => [{ triggerId: TOKEN_EXCHANGE_TRIGGER, deployed: true }],
  fromLive: (item) => {
    const { id, name, supported_triggers, all_changes_deployed } = item as {
      id: string;
      name?: string;
      supported_triggers?: { id: string }[];
      all_changes_deployed?: boolean;
    };
    return {
      key: id,
      ...(name !== undefined ? { name } : {}),
      attributes: {
        triggers: (supported_triggers ?? []).map((t) => t.id),
        ...(all_changes_deployed !== undefined ? { all_changes_deployed } : {}),
      },
    };
  },
  usable: (item) => (item.attributes.triggers as string[]).includes(TOKEN_EXCHANGE_TRIGGER),
  unknown: {
    code: 'REFERENCE_UNKNOWN_ACTION',
    message: (ref) =>
      `action_id ${ref.key} is not a deployed Action bound to the ${TOKEN_EXCHANGE_TRIGGER} trigger on the tenant (it does not exist, is not deployed, or is bound to another trigger)`,
  },
} as const satisfies ReferenceList;
