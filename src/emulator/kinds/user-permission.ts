/**
 * A user's permissions: assign (POST, a batch; one the user holds already is
 * a success) → 201 and {}; under API profile full also remove (DELETE, the
 * same body; one the user lacks is skipped) → 204 and the list of a user's
 * permissions (offset pages, sorted by permission name, each item with its
 * API's name, its description and its sources, as the service lists them).
 * A user the emulator was told does not exist is
 * a 404. Under full, an assign naming an API or permission the tenant does
 * not have is refused (references/resource-server.ts). Kept per user id, in
 * assignment order.
 */
import { userPermission } from '../../resources/index.js';
import { matchesSchema } from '../../schemas/index.js';
import { notFound } from '../errors.js';
import { parseBody } from '../http-io.js';
import { offsetPage } from '../pages.js';
import { emulatorKind, isRecord, listPage, validated, type TenantContext } from './kind.js';

export interface PermissionGrant {
  resource_server_identifier: string;
  permission_name: string;
}

const grantKey = (g: PermissionGrant) => `${g.resource_server_identifier}\u0000${g.permission_name}`;

/** The permissions of one tenant's users. */
class Permissions {
  private byUser = new Map<string, PermissionGrant[]>();

  constructor(private readonly tenant: TenantContext) {}

  private held(userId: string): PermissionGrant[] {
    if (!this.tenant.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    return this.byUser.get(userId) ?? [];
  }

  /** The permissions of a user, in assignment order (404 for a user who does not exist). */
  list(userId: string): PermissionGrant[] {
    return this.held(userId).map((g) => ({ ...g }));
  }

  /** Adds the permissions the user lacks; assigning one the user holds already is a success. */
  assign(userId: string, grants: readonly PermissionGrant[]): void {
    const held = this.held(userId);
    const keys = new Set(held.map(grantKey));
    let added = false;
    for (const g of grants) {
      if (keys.has(grantKey(g))) continue;
      keys.add(grantKey(g));
      held.push({
        resource_server_identifier: g.resource_server_identifier,
        permission_name: g.permission_name,
      });
      added = true;
    }
    this.byUser.set(userId, held);
    if (added) this.tenant.changed();
  }

  /** Takes the permissions away from the user; one the user does not have is skipped (a success). */
  remove(userId: string, grants: readonly PermissionGrant[]): void {
    const held = this.held(userId);
    const drop = new Set(grants.map(grantKey));
    const kept = held.filter((g) => !drop.has(grantKey(g)));
    if (kept.length === held.length) return;
    this.byUser.set(userId, kept);
    this.tenant.changed();
  }

  snapshot(): Record<string, PermissionGrant[]> {
    const out: Record<string, PermissionGrant[]> = {};
    for (const [user, grants] of this.byUser)
      if (grants.length > 0) out[user] = grants.map((g) => ({ ...g }));
    return out;
  }

  load(part: Record<string, PermissionGrant[]>): void {
    this.byUser = new Map(
      Object.entries(part).map(([user, grants]) => [user, grants.map((g) => ({ ...g }))]),
    );
  }
}

type Grants = { permissions: PermissionGrant[] };

/** The service's 204 to this DELETE still names a JSON body (observed). */
const EMPTY_JSON = { 'Content-Type': 'application/json; charset=utf-8' };

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A user's permissions as the service lists them (observed): sorted by
 * permission_name (and, a choice for names two APIs share, then by
 * resource_server_identifier), each with how the user holds it — every
 * assignment here is direct, so one DIRECT source with empty id and name —
 * and, filled in by the tenant's APIs (annotate), the API's name and the
 * permission's description.
 */
function listed(grants: readonly PermissionGrant[]) {
  return [...grants]
    .sort(
      (a, b) =>
        byCodeUnits(a.permission_name, b.permission_name) ||
        byCodeUnits(a.resource_server_identifier, b.resource_server_identifier),
    )
    .map((g) => ({
      permission_name: g.permission_name,
      description: '',
      resource_server_name: g.resource_server_identifier,
      resource_server_identifier: g.resource_server_identifier,
      sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
    }));
}

export const userPermissions = emulatorKind({
  kind: userPermission,
  key: 'userPermissions',
  shape: 'mapping',
  empty: (): Record<string, PermissionGrant[]> => ({}),
  open: (tenant) => new Permissions(tenant),
  handlers: {
    assignUserPermissions: (data, { params, contentType, body, checkReferences }) => {
      const request = validated<Grants>(
        'assignPermissionsRequest',
        parseBody(contentType, body, ['json', 'form']),
      );
      checkReferences(request);
      data.assign(params.user_id!, request.permissions);
      return { status: 201, body: {} };
    },
    removeUserPermissions: (data, { params, contentType, body }) => {
      const parsed = parseBody(contentType, body, ['json']);
      data.remove(params.user_id!, validated<Grants>('removePermissionsRequest', parsed).permissions);
      return { status: 204, headers: EMPTY_JSON };
    },
    listUserPermissions: (data, { op, params, query, annotate }) => {
      const { key, size } = listPage(op);
      const items = annotate(listed(data.list(params.user_id!)));
      return { status: 200, body: offsetPage(key, items, query, size) };
    },
  },
  sources: [
    {
      operations: ['assignUserPermissions'],
      facts: [
        ['201, `{}`; permissions held already are skipped', 'observed'],
        [
          '404 for a user the emulator is told does not exist; under `full` 404 for an unknown API, 400 for a permission it does not define',
          'SDK (the statuses); which of 400 and 404 is a choice',
        ],
      ],
    },
    {
      operations: ['removeUserPermissions'],
      facts: [
        [
          '204, empty, `Content-Type: application/json; charset=utf-8`; one the user lacks is skipped',
          'observed (the header), SDK (the body)',
        ],
      ],
    },
    {
      operations: ['listUserPermissions'],
      facts: [
        ['bare array, or with `include_totals=true` `{start, limit, total, permissions}`', 'SDK'],
        [
          'items `{permission_name, description, resource_server_name, resource_server_identifier, sources}`, a direct assignment one `DIRECT` source with empty id and name; sorted by `permission_name`',
          'observed',
        ],
        [
          'across APIs, then by `resource_server_identifier`; `description` "" when the API gives the permission none; an API the tenant lacks named by its identifier',
          'choice',
        ],
      ],
    },
  ],
  check(part) {
    if (!isRecord(part)) return 'userPermissions must be a mapping';
    for (const [user, grants] of Object.entries(part)) {
      if (!Array.isArray(grants) || !grants.every((g) => matchesSchema('permissionRequestItem', g))) {
        return `the permissions of user ${JSON.stringify(user)} are malformed`;
      }
    }
    return undefined;
  },
});
