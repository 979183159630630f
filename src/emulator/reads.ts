/**
 * The read operations of the full API profile (management-api-beyond-spec.md):
 * list and get of rate limit policies and token exchange profiles
 * (checkpoint pages), and the list of a user's permissions (offset pages).
 * Scope and authentication are checked before (api.ts); here: the query
 * (400), the path id (400 for a policy id too long, 404 for an unknown one)
 * and the answer, always 200.
 */
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
  filters?: readonly string[],
): unknown {
  switch (route) {
    case 'listPolicies': {
      // The filters the list descriptor names, each matching its attribute exactly.
      const filter = Object.fromEntries((filters ?? []).map((name) => [name, single(query, name)]));
      const page = checkpointPage('rate_limit_policies', store.listPolicies(filter), query, nowMs);
      return { rate_limit_policies: page.items, ...(page.next ? { next: page.next } : {}) };
    }
    case 'getPolicy':
      return store.getPolicy(checkPolicyId(params[0]!));
    case 'listProfiles': {
      const page = checkpointPage('token_exchange_profiles', store.listProfiles(), query, nowMs);
      return { token_exchange_profiles: page.items, ...(page.next ? { next: page.next } : {}) };
    }
    case 'getProfile':
      return store.getProfile(params[0]!);
    case 'listPermissions':
      return offsetPage('permissions', store.listPermissions(params[0]!), query);
  }
}
