import type { OperationDescriptor } from './operations.js';
import type { Attributes, KindModule } from './types.js';

/**
 * User permissions: one resource per permission, {user_id,
 * resource_server_identifier, permission_name}, all of it identity. Assigned
 * in batches per user (one POST carries many); no id, no removal.
 */

const assign: OperationDescriptor = {
  name: 'assignUserPermissions',
  method: 'POST',
  path: '/users/{user_id}/permissions',
  params: { user_id: 'user id' },
  scope: 'update:users',
  request: 'assignPermissionsRequest',
  success: [201],
  outcomes: {},
  batchKey: 'user_id',
};

export const userPermission: KindModule = {
  name: 'user_permission',
  configKey: 'user_permissions',
  title: 'user permission',
  identityFields: ['user_id', 'resource_server_identifier', 'permission_name'],
  id: null,
  operations: { create: assign },
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
