/**
 * User roles: a fourth kind declared by a test alone (the package ships
 * three), to prove that a kind is its declaration, its emulator module
 * (emulator.ts) and its API schemas (schemas/). One resource per role of a
 * user, {user_id, role_id}, all of it identity, no id; assigned in batches
 * per user (POST /users/{id}/roles {roles: [...]}); under API profile full
 * also removed the same way (DELETE) and listed (GET, offset pages).
 */
import { LIST_PAGE_SIZE, type KindModule, type OperationDescriptor } from '../../../src/resources/index.js';
import type { SchemaName } from '../../../src/schemas/index.js';

/** This kind's schemas are added at run time (register.ts), so their names are not SchemaNames to the compiler. */
const schema = (name: string) => name as SchemaName;

const assign: OperationDescriptor = {
  name: 'assignUserRoles',
  profile: 'spec',
  method: 'POST',
  path: '/users/{user_id}/roles',
  params: { user_id: 'user id' },
  scope: 'update:users',
  request: schema('userRolesRequest'),
  success: [204],
  outcomes: {},
  batchKey: 'user_id',
};

const remove: OperationDescriptor = { ...assign, name: 'removeUserRoles', profile: 'full', method: 'DELETE' };

const list: OperationDescriptor = {
  name: 'listUserRoles',
  profile: 'full',
  method: 'GET',
  path: '/users/{user_id}/roles',
  params: { user_id: 'user id' },
  scope: 'read:users',
  response: schema('userRoleList'),
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
  id: null,
  operations: { create: assign, delete: remove, list },
  requestBody: (resources) => ({ roles: resources.map((r) => String(r.role_id)) }),
  fromResponse: () => ({ id: null }),
  fromLive: (item, params) => ({
    id: null,
    attributes: { user_id: params.user_id, role_id: (item as { id: string }).id },
  }),
  limitation: 'the API has no operation to take a role away from a user',
} as const satisfies KindModule;
