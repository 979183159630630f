/**
 * TypeScript types of the bodies and documents in schemas/, generated at build
 * time by scripts/gen-types.mjs (src/generated/types/). The schemas are the
 * source: change a schema, rebuild, and every use of these types follows.
 */
export type { AssignPermissionsRequest } from '../generated/types/assign-permissions-request.js';
export type { ErrorBody } from '../generated/types/error.js';
export type { PermissionRequestItem } from '../generated/types/permission-request-item.js';
export type {
  TenantformPlan as PlanDocument,
  Change as PlanChangeDocument,
} from '../generated/types/plan.js';
export type { RateLimitPolicyConfiguration } from '../generated/types/rate-limit-policy-configuration.js';
export type { CreateRateLimitPolicyRequest } from '../generated/types/rate-limit-policy-create-request.js';
export type { RateLimitPolicy } from '../generated/types/rate-limit-policy.js';
export type { CreateTokenExchangeProfileRequest } from '../generated/types/token-exchange-profile-create-request.js';
export type { TokenExchangeProfile } from '../generated/types/token-exchange-profile.js';
