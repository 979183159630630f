import type { Attributes, KindModule } from './kind.js';
import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import { peerObjects, peerString, type KindPeers } from './peers.js';

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

const EXAMPLE = `#
# Permissions (of an API, the resource server) assigned to existing users.
# The API can add a permission but not remove one: when you delete an entry,
# tenantform stops tracking it and says so in the plan; revoke it in the dashboard.
user_permissions:
  - user_id: auth0|000000000000000000000001 # replace with a real user id
    permissions:
      - resource_server_identifier: https://api.example.com/
        permission_name: read:reports
`;

/** One permission's attributes. */
const permission = (user_id: string, resource_server_identifier: string, permission_name: string) => ({
  id: null,
  attributes: { user_id, resource_server_identifier, permission_name },
});

/**
 * The provider has a resource per permission (`auth0_user_permission`) and
 * one for all of a user's (`auth0_user_permissions`, a set of blocks); the
 * Deploy CLI does not manage user permissions.
 */
const PEERS: KindPeers = {
  terraform: [
    {
      type: 'auth0_user_permission',
      source:
        'terraform-provider-auth0 internal/auth0/user/resource_permission.go: user_id, resource_server_identifier, permission (id user::server::permission)',
      read: (attributes) => [
        permission(
          peerString(attributes, 'user_id'),
          peerString(attributes, 'resource_server_identifier'),
          peerString(attributes, 'permission'),
        ),
      ],
      write: ({ user_id, resource_server_identifier, permission_name }) => ({
        user_id,
        resource_server_identifier,
        permission: permission_name,
      }),
    },
    {
      type: 'auth0_user_permissions',
      source:
        'terraform-provider-auth0 internal/auth0/user/resource_permissions.go: user_id and a set of permissions blocks (name, resource_server_identifier)',
      read(attributes) {
        const user = peerString(attributes, 'user_id');
        return peerObjects(attributes, 'permissions').map((p, i) =>
          permission(
            user,
            peerString(p, 'resource_server_identifier', ['permissions', i]),
            peerString(p, 'name', ['permissions', i]),
          ),
        );
      },
    },
  ],
};

export const userPermission = {
  name: 'user_permission',
  title: { one: 'user permission', many: 'user permissions' },
  identityFields: ['user_id', 'resource_server_identifier', 'permission_name'],
  describe: ([user, server, permission]) => `permission ${permission} on ${server} for user ${user}`,
  label: ([user, , permission]) => `${user} ${permission}`,
  config: {
    key: 'user_permissions',
    file: 'user-permissions.yaml',
    description:
      'Permissions assigned to users. Identity of each permission: user_id + resource_server_identifier + permission_name.',
    schema: 'assign-permissions-request.schema.json#/properties/permissions',
    group: {
      by: 'user_id',
      byField: {
        type: 'string',
        minLength: 1,
        description: "The user's id, e.g. auth0|5f7c8ec7c33c6c004bbafe82.",
      },
      owner: { one: 'user', many: 'users' },
      list: 'permissions',
      member: { one: 'permission', many: 'permissions' },
    },
    example: EXAMPLE,
  },
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
  peers: PEERS,
} as const satisfies KindModule;
