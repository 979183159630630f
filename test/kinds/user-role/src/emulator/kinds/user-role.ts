/**
 * The emulator's module for the test's user roles (src/resources/user-role.ts
 * of test/kinds/user-role): one assignment per role of a user, ids `ura_` +
 * 16 characters. Assign → 201 and the assignment (a role the user has is a
 * 409; a user the emulator was told does not exist is a 404); remove → 204
 * (an unknown id is a 404); under API profile full a user's list (offset
 * pages).
 */
import { userRole } from '../../resources/user-role.js';
import { matchesSchema } from '../../schemas/index.js';
import { HttpError, notFound } from '../errors.js';
import { parseBody } from '../http-io.js';
import { randomAlphanumeric } from '../ids.js';
import { offsetPage } from '../pages.js';
import { Catalog } from './catalog.js';
import { completeItems, emulatorKind, listPage, validated, type TenantContext } from './kind.js';

/** A role of a user as the API returns it. */
export interface UserRole {
  id: string;
  user_id: string;
  role_id: string;
  created_at: string;
}

const keyOf = (r: Pick<UserRole, 'user_id' | 'role_id'>) => JSON.stringify([r.user_id, r.role_id]);

class UserRoles {
  private items = new Catalog<UserRole>(keyOf);

  constructor(private readonly tenant: TenantContext) {}

  list(userId: string): UserRole[] {
    if (!this.tenant.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    return this.items
      .ordered(
        (r) => ({ ...r }),
        (r) => r.user_id === userId,
      )
      .map((o) => o.item);
  }

  assign(userId: string, roleId: string): UserRole {
    if (!this.tenant.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    if (this.items.withKey(keyOf({ user_id: userId, role_id: roleId })))
      throw new HttpError(409, 'The user already has this role', 'conflict');
    const made = {
      id: `ura_${randomAlphanumeric(16)}`,
      user_id: userId,
      role_id: roleId,
      created_at: this.tenant.timestamp(),
    };
    this.items.add(made);
    this.tenant.changed();
    return { ...made };
  }

  remove(id: string): void {
    if (!this.items.get(id)) throw notFound('The user role does not exist', 'inexistent_user_role');
    this.items.remove(id);
    this.tenant.changed();
  }

  snapshot(): UserRole[] {
    return this.items.values().map((r) => ({ ...r }));
  }

  load(part: UserRole[]): void {
    this.items = new Catalog<UserRole>(keyOf);
    for (const r of part) this.items.add({ ...r });
  }
}

export const userRoles = emulatorKind({
  kind: userRole,
  key: 'userRoles',
  shape: 'list',
  empty: (): UserRole[] => [],
  open: (tenant) => new UserRoles(tenant),
  handlers: {
    assignUserRole: (data, { params, contentType, body }) => {
      const request = validated<{ role_id: string }>(
        'userRoleCreateRequest',
        parseBody(contentType, body, ['json']),
      );
      return { status: 201, body: data.assign(params.user_id!, request.role_id) };
    },
    removeUserRole: (data, { params }) => {
      data.remove(params.id!);
      return { status: 204 };
    },
    listUserRoles: (data, { op, params, query }) => {
      const { key, size } = listPage(op);
      return { status: 200, body: offsetPage(key, data.list(params.user_id!), query, size) };
    },
  },
  sources: [
    {
      operations: ['assignUserRole'],
      facts: [['201, the assignment with its id', 'choice (a test-only kind)']],
    },
    { operations: ['removeUserRole'], facts: [['204, empty', 'choice (a test-only kind)']] },
    { operations: ['listUserRoles'], facts: [['offset pages', 'choice (a test-only kind)']] },
  ],
  check(part) {
    if (!Array.isArray(part)) return 'userRoles must be a list';
    const held = new Set<string>();
    for (const r of part) {
      if (!matchesSchema('userRoleAssignment', r)) return 'a user role is malformed';
      const key = keyOf(r as UserRole);
      if (held.has(key)) return `user role ${key} is listed twice`;
      held.add(key);
    }
    return undefined;
  },
  complete: (part, now) =>
    Array.isArray(part)
      ? (completeItems(part, 'ura_', 16, now) as Record<string, unknown>[]).map(
          ({ updated_at: _u, ...r }) => r,
        )
      : part,
});
