/**
 * API: the HTTP client of the Tenant Management API. Owns the target and
 * credential resolution (flags and environment), authentication (bearer token
 * or client credentials), the undici transport, retries, rate-limit pacing,
 * response checking and secret redaction in everything it logs or throws.
 * Does not own: what to send or in which order (apply/), nor exit codes (cli/).
 */
export { createApiClient } from './client.js';
export { resolveTarget, isLoopbackHost } from './target.js';
export type { Env, TargetFlags } from './target.js';
export { resolveCredentials } from './credentials.js';
export type { CredentialFlags } from './credentials.js';
export { ApiConfigError, ApiError, codeForStatus } from './errors.js';
export type { ApiErrorCode, ApiErrorFields } from './errors.js';
export { InvalidPathIdError, encodeSegment } from './paths.js';
export { createRedactor, redact, MASK } from './redact.js';
export type { Redactor } from './redact.js';
export { agentOptions } from './transport.js';
export { proxyFromEnv, displayProxy } from './proxy.js';
export type { ProxySettings } from './proxy.js';
export { readList, type ListCall, type ListRead, type ReadListOptions } from './pages.js';
export {
  findLive,
  readReferences,
  readTenant,
  type ReadTenantOptions,
  type ReferencesRead,
  type TenantRead,
} from './read-tenant.js';
export type {
  ApiClient,
  ApiClientOptions,
  ApiErrorInfo,
  ApiStats,
  AssignPermissionsResult,
  CallResult,
  CreatePolicyResult,
  CreateProfileResult,
  RateGroupFacts,
  Credentials,
  DeletePolicyResult,
  PermissionItem,
  Query,
  RateLimitAction,
  RateLimitPolicy,
  RateLimitPolicyConfiguration,
  RateLimitPolicyCreate,
  RetryOptions,
  Target,
  TokenExchangeProfile,
  TokenExchangeProfileCreate,
  WaitKind,
} from './types.js';
