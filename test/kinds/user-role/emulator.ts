/**
 * The emulator's module for the test's user roles (user-role.ts): per user,
 * the role ids in assignment order. Assign adds the ones the user lacks (204);
 * remove drops the ones it has (204); the list answers offset pages of
 * {id, name}. A user the emulator was told does not exist is a 404.
 */
import { emulatorKind, type TenantContext } from '../../../src/emulator/index.js';
import { notFound } from '../../../src/emulator/errors.js';
import { parseBody } from '../../../src/emulator/http-io.js';
import { isRecord, listPage, validated } from '../../../src/emulator/kinds/kind.js';
import { offsetPage } from '../../../src/emulator/pages.js';
import type { SchemaName } from '../../../src/schemas/index.js';
import { userRole } from './user-role.js';

type Roles = Record<string, string[]>;

class UserRoles {
  private byUser = new Map<string, string[]>();

  constructor(private readonly tenant: TenantContext) {}

  private held(userId: string): string[] {
    if (!this.tenant.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    return this.byUser.get(userId) ?? [];
  }

  list(userId: string) {
    return this.held(userId).map((id) => ({ id, name: `Role ${id}` }));
  }

  change(userId: string, roles: readonly string[], add: boolean): void {
    const held = this.held(userId);
    const next = add
      ? [...held, ...roles.filter((r) => !held.includes(r))]
      : held.filter((r) => !roles.includes(r));
    if (next.length === held.length) return;
    this.byUser.set(userId, next);
    this.tenant.changed();
  }

  snapshot(): Roles {
    return Object.fromEntries([...this.byUser].filter(([, roles]) => roles.length > 0));
  }

  load(part: Roles): void {
    this.byUser = new Map(Object.entries(part).map(([user, roles]) => [user, [...roles]]));
  }
}

const body = (contentType: string | undefined, raw: Buffer) =>
  validated<{ roles: string[] }>('userRolesRequest' as SchemaName, parseBody(contentType, raw, ['json']))
    .roles;

export const userRoles = emulatorKind({
  kind: userRole,
  key: 'userRoles',
  shape: 'mapping',
  empty: (): Roles => ({}),
  open: (tenant) => new UserRoles(tenant),
  handlers: {
    assignUserRoles: (data, { params, contentType, body: raw }) => {
      data.change(params.user_id!, body(contentType, raw), true);
      return { status: 204 };
    },
    removeUserRoles: (data, { params, contentType, body: raw }) => {
      data.change(params.user_id!, body(contentType, raw), false);
      return { status: 204 };
    },
    listUserRoles: (data, { op, params, query }) => {
      const { key, size } = listPage(op);
      return { status: 200, body: offsetPage(key, data.list(params.user_id!), query, size) };
    },
  },
  check(part) {
    if (!isRecord(part)) return 'userRoles must be a mapping';
    const bad = Object.entries(part).find(
      ([, roles]) => !Array.isArray(roles) || !roles.every((r) => typeof r === 'string'),
    );
    return bad ? `the roles of user ${JSON.stringify(bad[0])} are malformed` : undefined;
  },
});
