/**
 * Emulator: a local Tenant Management API server, the embedded default target
 * for demos, end-to-end tests and benchmarks. Owns the wire behaviour (routes,
 * status codes, error bodies, tokens, rate-limit headers, faults) and the
 * emulated tenant's data. Does not own: the schemas (schemas/), the client
 * (api/) or the CLI flags (cli/commands/emulator.ts).
 */
export { startEmulator } from './server.js';
export { LocalAuthority } from './certificates.js';
export { UNLIMITED_BUCKET } from './rate-limit.js';
export { DATE_HEADER_MODES, MAX_FRONT_END_OFFSET_MS, type DateHeaderMode } from './date-header.js';
export type { RateLimitGroup, RateLimitGroupOptions } from './rate-limit-groups.js';
export {
  MAX_WINDOW_SEC,
  RATE_LIMIT_MODELS,
  RATE_LIMIT_TIER_NAMES,
  RATE_LIMIT_TIERS,
  rateText,
  resolveRateLimit,
  tierLines,
  type RateLimitModel,
  type RateLimitNames,
  type RateLimitSettings,
  type RateLimitTier,
  type RateLimitTierName,
} from './rate-limit-options.js';
export { ADMIN_KEY_HEADER, ADMIN_PREFIX } from './admin.js';
export { checkFaults, EmulatorOptionError, FAULT_NAMES } from './faults.js';
export { EMULATOR_SCOPES, emulatorScopes, servedOperations } from './api.js';
export { routesFor } from './router.js';
export {
  EVERY_ROUTE,
  routeName,
  routeSourceRows,
  type RouteFact,
  type RouteSources,
} from './route-sources.js';
export { generateTraffic, TRAFFIC_SHAPES, type TrafficEvent, type TrafficShape } from './traffic.js';
export { EMULATOR_KINDS, emulatorKind } from './kinds/index.js';
export { EMULATOR_REFERENCES } from './references/index.js';
export type { Application, ResourceServer, TenantAction, TenantLogEvent } from './references/index.js';
export type {
  EmulatorKind,
  KindData,
  OperationInput,
  OperationResult,
  TenantContext,
} from './kinds/index.js';
export type {
  EmulatorClient,
  EmulatorHandle,
  EmulatorOptions,
  EmulatorSnapshot,
  EmulatorStats,
  FaultOptions,
  IssueTokenOptions,
  PermissionGrant,
  RateLimitOptions,
  RateLimitPolicy,
  RateLimitPolicyConfiguration,
  TokenExchangeProfile,
} from './types.js';
export { startTenants, variablePrefix, type TenantHandle } from './tenants.js';
