import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import type { Attributes, KindModule } from './types.js';

/**
 * User permissions: one resource per permission, {user_id,
 * resource_server_identifier, permission_name}, all of it identity, no id.
 * Assigned in batches per user (one POST carries many). Under the spec
 * profile there is no removal; the full profile adds DELETE of a batch per
 * user (same body as the assign) and a list of a user's permissions (offset
 * pages).
 */

const assign: OperationDescriptor = {
  name: 'assignUserPermissions',
  profile: 'spec',
  method: 'POST',
  path: '/users/{user_id}/permissions',
  params: { user_id: 'user id' },
  scope: 'update:users',
  request: 'assignPermissionsRequest',
  success: [201],
  outcomes: {},
  batchKey: 'user_id',
};

/** Removing a permission the user does not have succeeds. */
const remove: OperationDescriptor = {
  name: 'removeUserPermissions',
  profile: 'full',
  method: 'DELETE',
  path: '/users/{user_id}/permissions',
  params: { user_id: 'user id' },
  scope: 'update:users',
  request: 'removePermissionsRequest',
  success: [204],
  outcomes: {},
  batchKey: 'user_id',
};

const list: OperationDescriptor = {
  name: 'listUserPermissions',
  profile: 'full',
  method: 'GET',
  path: '/users/{user_id}/permissions',
  params: { user_id: 'user id' },
  scope: 'read:users',
  response: 'userPermissionList',
  success: [200],
  outcomes: {},
  pagination: 'offset',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'permissions',
};

export const userPermission: KindModule = {
  name: 'user_permission',
  configKey: 'user_permissions',
  title: 'user permission',
  identityFields: ['user_id', 'resource_server_identifier', 'permission_name'],
  id: null,
  operations: { create: assign, delete: remove, list },
  requestBody: (resources: readonly Attributes[]) => ({
    permissions: resources.map((p) => ({
      resource_server_identifier: String(p.resource_server_identifier),
      permission_name: String(p.permission_name),
    })),
  }),
  fromResponse: () => ({ id: null }),
  fromLive: (item, params) => {
    const { resource_server_identifier, permission_name } = item as Attributes;
    return { id: null, attributes: { user_id: params.user_id, resource_server_identifier, permission_name } };
  },
  limitation: 'the API has no operation to remove a permission from a user',
};
