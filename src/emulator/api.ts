/**
 * The operations of the Tenant Management API, after routing: bearer check
 * (401), scope check (403, the served descriptor's scope), then the kind
 * module's handler (kinds/): body parsing (415/400), schema validation (400,
 * with the same messages as `tenantform validate`), the kind's data (404/409)
 * and the success answer.
 */
import {
  descriptorsOf,
  profileIncludes,
  type ApiProfile,
  type OperationDescriptor,
} from '../resources/index.js';
import type { Authority, Identification } from './auth.js';
import { EMULATOR_KINDS, type EmulatorKind, type OperationResult } from './kinds/index.js';
import { EMULATOR_REFERENCES } from './references/index.js';
import type { OperationRoute } from './router.js';
import type { TenantStore } from './store.js';

export type { OperationResult } from './kinds/index.js';

/**
 * The descriptors an emulator with API profile `profile` serves: those its
 * kind modules have a handler for, when the profile includes theirs.
 */
export function servedOperations(
  profile: ApiProfile,
  kinds: readonly EmulatorKind[] = [...EMULATOR_KINDS, ...EMULATOR_REFERENCES],
): OperationDescriptor[] {
  return kinds.flatMap((module) =>
    descriptorsOf(module.kind.operations).filter(
      (op) => Object.hasOwn(module.handlers, op.name) && profileIncludes(profile, op.profile),
    ),
  );
}

/** The scopes of the operations an emulator with API profile `profile` serves; its demo client holds them all. */
export function emulatorScopes(
  profile: ApiProfile,
  kinds: readonly EmulatorKind[] = [...EMULATOR_KINDS, ...EMULATOR_REFERENCES],
): string[] {
  return [...new Set(servedOperations(profile, kinds).map((op) => op.scope))];
}

/** Every scope of the spec's operations (what the demo client of a default emulator holds). */
export const EMULATOR_SCOPES: readonly string[] = emulatorScopes('spec');

export interface OperationRequest {
  route: OperationRoute;
  /** Path parameters by the descriptor's names, decoded. */
  params: Readonly<Record<string, string>>;
  identification: Identification;
  contentType: string | undefined;
  body: Buffer;
  /** The query string's parameters (read by the list operations only). */
  query: URLSearchParams;
}

export function runOperation(
  req: OperationRequest,
  store: TenantStore,
  authority: Authority,
  nowMs: number,
): OperationResult {
  if ('error' in req.identification) throw req.identification.error;
  const { module, op } = req.route;
  authority.requireScope(req.identification.principal, op.scope);
  const handler = module.handlers[op.name]!;
  return handler(store.data(module), {
    op,
    params: req.params,
    contentType: req.contentType,
    body: req.body,
    query: req.query,
    nowMs,
    checkReferences: (body) => store.checkReferences(op.name, body),
    annotate: (items) => store.annotate(op.name, items),
    profile: req.route.profile,
  });
}
