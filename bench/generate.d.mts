/** Types of bench/generate.mjs, for test/bench-smoke.test.ts. */
import type { StateDocument } from '../src/state/types.js';

export interface PolicyAttributes {
  resource: string;
  consumer: string;
  consumer_selector: string;
  configuration: { action: string; limit?: number; redirect_uri?: string };
}
export interface PermissionAttributes {
  user_id: string;
  resource_server_identifier: string;
  permission_name: string;
}
export interface ProfileAttributes {
  name: string;
  subject_token_type: string;
  action_id: string;
  type: string;
}
export interface GeneratedResources {
  policies: PolicyAttributes[];
  profiles: ProfileAttributes[];
  permissions: PermissionAttributes[];
}
export type GeneratedKind = 'rate_limit_policy' | 'user_permission' | 'token_exchange_profile';

export function kindCounts(total: number): { policies: number; profiles: number; permissions: number };
export function policyAt(i: number): PolicyAttributes;
export function userIdAt(u: number): string;
export function permissionAt(i: number, perUser?: number): PermissionAttributes;
export function profileAt(i: number): ProfileAttributes;
export function generateResources(total: number, options?: { perUser?: number }): GeneratedResources;
export function writeConfig(dir: string, resources: GeneratedResources): string[];
export function addressOf(kind: GeneratedKind, attributes: object): string;
export function buildState(
  resources: GeneratedResources,
  options?: { inSync?: number; stale?: number },
): StateDocument;
export function writeFixture(
  dir: string,
  resources: GeneratedResources,
  statePath?: string,
  state?: StateDocument,
): string[];
