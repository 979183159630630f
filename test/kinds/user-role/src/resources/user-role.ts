import type { KindModule } from './kind.js';
import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import { createdFields } from './rate-limit-policy.js';

/**
 * User roles: a kind of the test test/kinds/user-role only (the package does
 * not ship it), which test/kind-as-files.test.ts adds to a copy of the
 * checkout as a shipped kind is added. One resource per role of a user,
 * {user_id, role_id}, all of it identity; the tenant gives each an id
 * (ura_…). Assigned by POST /users/{user_id}/roles, removed by DELETE
 * /user-roles/{id}; under API profile full also listed per user (GET, offset
 * pages).
 */

const create: OperationDescriptor = {
  name: 'assignUserRole',
  profile: 'spec',
  method: 'POST',
  path: '/users/{user_id}/roles',
  params: { user_id: 'user id' },
  scope: 'update:users',
  request: 'userRoleCreateRequest',
  response: 'userRoleAssignment',
  success: [201],
  outcomes: { 409: 'present' },
};

const remove: OperationDescriptor = {
  name: 'removeUserRole',
  profile: 'spec',
  method: 'DELETE',
  path: '/user-roles/{id}',
  params: { id: 'user role id' },
  scope: 'update:users',
  success: [204],
  outcomes: { 404: 'gone' },
};

const list: OperationDescriptor = {
  name: 'listUserRoles',
  profile: 'full',
  method: 'GET',
  path: '/users/{user_id}/roles',
  params: { user_id: 'user id' },
  scope: 'read:users',
  response: 'userRoleList',
  success: [200],
  outcomes: {},
  pagination: 'offset',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'roles',
};

export const userRole = {
  name: 'user_role',
  title: { one: 'user role', many: 'user roles' },
  identityFields: ['user_id', 'role_id'],
  describe: ([user, role]) => `role ${role} of user ${user}`,
  label: ([user, role]) => `${user} ${role}`,
  config: {
    key: 'user_roles',
    file: 'user-roles.yaml',
    description: 'Roles assigned to users. Identity: user_id + role_id.',
    schema: 'user-role.schema.json',
    example: `#
# Roles assigned to existing users.
user_roles:
  - user_id: auth0|000000000000000000000001 # replace with a real user id
    role_id: rol_0000000000000001
`,
  },
  id: {
    description: 'ura_ followed by 16 letters or digits',
    parseIdentity(text) {
      const [user, role, ...rest] = text.split('/');
      if (!user || !role || rest.length > 0)
        return {
          problem: `user role identity must be user_id/role_id, e.g. auth0|123/rol_1 (got "${text}")`,
        };
      return [user, role];
    },
  },
  operations: { create, delete: remove, list },
  requestBody: (resources) => ({ role_id: resources[0]!.role_id }),
  fromResponse: createdFields,
  fromLive: (item) => {
    const { id, user_id, role_id } = item as { id: string; user_id: string; role_id: string };
    return { id, attributes: { user_id, role_id } };
  },
  limitation: 'the API has no operation to change a role of a user',
} as const satisfies KindModule;
