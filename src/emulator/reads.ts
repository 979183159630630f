/**
 * The read operations of the full API profile (management-api-beyond-spec.md):
 * list and get of rate limit policies and token exchange profiles
 * (checkpoint pages), and the list of a user's permissions (offset pages).
 * Scope and authentication are checked before (api.ts); here: the query
 * (400), the path id (400 for a policy id too long, 404 for an unknown one)
 * and the answer, always 200.
 */
import type { OperationDescriptor } from '../resources/index.js';
import { HttpError } from './errors.js';
import { checkpointPage, offsetPage, single } from './pages.js';
import type { TenantStore } from './store.js';

export type ReadRoute = 'listPolicies' | 'getPolicy' | 'listPermissions' | 'listProfiles' | 'getProfile';

/** Longest policy id the API accepts in a path (`rlp_` and up to 22 characters). */
export const MAX_POLICY_ID_LENGTH = 26;

export function checkPolicyId(id: string): string {
  if (id.length > MAX_POLICY_ID_LENGTH) {
    throw new HttpError(
      400,
      `Path validation error: id must be at most ${MAX_POLICY_ID_LENGTH} characters long`,
      'invalid_uri',
    );
  }
  return id;
}

/** Answers one read route with its 200 body. */
export function runRead(
  route: ReadRoute,
  params: readonly string[],
  query: URLSearchParams,
  store: TenantStore,
  nowMs: number,
  op: OperationDescriptor,
): unknown {
  /** A list descriptor's array key and page sizes (the served descriptor is always a list here). */
  const list = () => {
    if (!op.itemsKey || !op.pageSize) throw new Error(`internal: ${op.name} is not a list operation`);
    return { key: op.itemsKey, size: op.pageSize };
  };
  switch (route) {
    case 'listPolicies': {
      // The filters the list descriptor names, each matching its attribute exactly.
      const { key, size } = list();
      const filter = Object.fromEntries((op.filters ?? []).map((name) => [name, single(query, name)]));
      const page = checkpointPage(key, store.listPolicies(filter), query, nowMs, size);
      return { [key]: page.items, ...(page.next ? { next: page.next } : {}) };
    }
    case 'getPolicy':
      return store.getPolicy(checkPolicyId(params[0]!));
    case 'listProfiles': {
      const { key, size } = list();
      const page = checkpointPage(key, store.listProfiles(), query, nowMs, size);
      return { [key]: page.items, ...(page.next ? { next: page.next } : {}) };
    }
    case 'getProfile':
      return store.getProfile(params[0]!);
    case 'listPermissions': {
      const { key, size } = list();
      return offsetPage(key, store.listPermissions(params[0]!), query, size);
    }
  }
}
