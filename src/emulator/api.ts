/**
 * The operations of the Tenant Management API, after routing: bearer check
 * (401), scope check (403), body parsing (415/400) and schema validation
 * (400, with the same messages as `tenantform validate`), then the store
 * (404/409) and the success answer.
 *
 * Successes, the spec's four: create policy → 201 + policy; delete policy →
 * 204 and no body; assign permissions → 201 + {}; create profile → 201 +
 * profile. Under API profile full also: update policy → 200 + the policy
 * (same id, new updated_at); remove permissions → 204 (one the user lacks is
 * skipped); update profile → 204 (a subject_token_type another profile has is
 * a 409); delete profile → 204; list and get (reads.ts) → 200.
 * A policy id longer than 26 characters is a 400 (invalid_uri); an unknown
 * policy or profile id is a 404.
 */
import {
  operationsFor,
  profileIncludes,
  rateLimitPolicy,
  tokenExchangeProfile,
  userPermission,
  type ApiProfile,
  type OperationDescriptor,
} from '../resources/index.js';
import { checkSchema, type SchemaIssue, type SchemaName } from '../schemas/index.js';
import type { Authority, Identification } from './auth.js';
import { badRequest } from './errors.js';
import { parseBody } from './http-io.js';
import { checkPolicyId, runRead } from './reads.js';
import { ROUTES, type RouteDef, type RouteName } from './router.js';
import type { PolicyRequest, ProfileRequest, TenantStore } from './store.js';
import type { PermissionGrant } from './types.js';

export type OperationName = Exclude<RouteName, 'token'>;

const policyOps = operationsFor(rateLimitPolicy, 'full');
const permissionOps = operationsFor(userPermission, 'full');
const profileOps = operationsFor(tokenExchangeProfile, 'full');

/**
 * The kinds' operation descriptors (src/resources) this emulator serves, by
 * route. A route is served when the emulator's API profile includes its
 * descriptor's profile (routesFor). The scope each route demands is the
 * descriptor's; the route's method and path (router.ts) and the statuses
 * runOperation answers are the emulator's own, held to the descriptors by
 * test/emulator-descriptors.test.ts.
 */
export const SERVED_OPERATIONS: Readonly<Record<OperationName, OperationDescriptor>> = {
  createPolicy: policyOps.create,
  updatePolicy: policyOps.update!,
  deletePolicy: policyOps.delete!,
  assignPermissions: permissionOps.create,
  removePermissions: permissionOps.delete!,
  createProfile: profileOps.create,
  updateProfile: profileOps.update!,
  deleteProfile: profileOps.delete!,
  listPolicies: policyOps.list!,
  getPolicy: policyOps.get!,
  listPermissions: permissionOps.list!,
  listProfiles: profileOps.list!,
  getProfile: profileOps.get!,
};

/** The routes an emulator with API profile `profile` serves (the token endpoint always). */
export function routesFor(profile: ApiProfile): RouteDef[] {
  return ROUTES.filter(
    (r) => r.route === 'token' || profileIncludes(profile, SERVED_OPERATIONS[r.route].profile),
  );
}

/** The descriptors an emulator with API profile `profile` serves. */
export function servedOperations(profile: ApiProfile): OperationDescriptor[] {
  return (Object.keys(SERVED_OPERATIONS) as OperationName[])
    .map((route) => SERVED_OPERATIONS[route])
    .filter((op) => profileIncludes(profile, op.profile));
}

/** The scope each route demands. */
export const OPERATION_SCOPES = Object.fromEntries(
  Object.entries(SERVED_OPERATIONS).map(([route, op]) => [route, op.scope]),
) as Readonly<Record<OperationName, string>>;

/** The scopes of the operations an emulator with API profile `profile` serves; its demo client holds them all. */
export function emulatorScopes(profile: ApiProfile): string[] {
  return [...new Set(servedOperations(profile).map((op) => op.scope))];
}

/** Every scope of the spec's operations (what the demo client of a default emulator holds). */
export const EMULATOR_SCOPES: readonly string[] = emulatorScopes('spec');

export interface OperationRequest {
  route: OperationName;
  params: string[];
  identification: Identification;
  contentType: string | undefined;
  body: Buffer;
  /** The query string's parameters (read by the list operations only). */
  query: URLSearchParams;
}

export interface OperationResult {
  status: number;
  body?: unknown;
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function formatIssue(issue: SchemaIssue): string {
  const where = issue.keyword === 'required' ? issue.path : issue.path.slice(0, -1);
  return where.length > 0 ? `${formatPath(where)}: ${issue.message}` : issue.message;
}

/** Validates a parsed body; throws a 400 listing every issue. */
function validated<T>(schema: SchemaName, body: unknown): T {
  const issues = checkSchema(schema, body);
  if (issues.length > 0) throw badRequest(`Payload validation error: ${issues.map(formatIssue).join('; ')}`);
  return body as T;
}

export function runOperation(
  req: OperationRequest,
  store: TenantStore,
  authority: Authority,
  nowMs: number,
): OperationResult {
  if ('error' in req.identification) throw req.identification.error;
  authority.requireScope(req.identification.principal, OPERATION_SCOPES[req.route]);
  switch (req.route) {
    case 'createPolicy': {
      const body = parseBody(req.contentType, req.body, ['json', 'form'], [['configuration', 'limit']]);
      return {
        status: 201,
        body: store.createPolicy(validated<PolicyRequest>('rateLimitPolicyCreateRequest', body)),
      };
    }
    case 'updatePolicy': {
      const id = checkPolicyId(req.params[0]!);
      const body = parseBody(req.contentType, req.body, ['json', 'form'], [['configuration', 'limit']]);
      const { configuration } = validated<Pick<PolicyRequest, 'configuration'>>(
        'rateLimitPolicyUpdateRequest',
        body,
      );
      return { status: 200, body: store.updatePolicy(id, configuration) };
    }
    case 'deletePolicy': {
      store.deletePolicy(checkPolicyId(req.params[0]!));
      return { status: 204 };
    }
    case 'assignPermissions': {
      const userId = req.params[0]!;
      const body = parseBody(req.contentType, req.body, ['json', 'form']);
      const { permissions } = validated<{ permissions: PermissionGrant[] }>('assignPermissionsRequest', body);
      store.assignPermissions(userId, permissions);
      return { status: 201, body: {} };
    }
    case 'removePermissions': {
      const userId = req.params[0]!;
      const body = parseBody(req.contentType, req.body, ['json']);
      const { permissions } = validated<{ permissions: PermissionGrant[] }>('removePermissionsRequest', body);
      store.removePermissions(userId, permissions);
      return { status: 204 };
    }
    case 'listPolicies':
    case 'getPolicy':
    case 'listPermissions':
    case 'listProfiles':
    case 'getProfile':
      return {
        status: 200,
        body: runRead(req.route, req.params, req.query, store, nowMs, SERVED_OPERATIONS[req.route]),
      };
    case 'createProfile': {
      const body = parseBody(req.contentType, req.body, ['json']);
      return {
        status: 201,
        body: store.createProfile(validated<ProfileRequest>('tokenExchangeProfileCreateRequest', body)),
      };
    }
    case 'updateProfile': {
      const body = parseBody(req.contentType, req.body, ['json']);
      store.updateProfile(
        req.params[0]!,
        validated<Partial<Pick<ProfileRequest, 'name' | 'subject_token_type'>>>(
          'tokenExchangeProfileUpdateRequest',
          body,
        ),
      );
      return { status: 204 };
    }
    case 'deleteProfile': {
      store.deleteProfile(req.params[0]!);
      return { status: 204 };
    }
  }
}
