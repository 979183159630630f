/**
 * Seeded tenant configs for the reliability suite, and the checks that compare
 * what the emulator holds and what the state records with what a config asks
 * for. Configs are written as JSON, which is valid YAML.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { formatAddress } from '../../src/resources/index.js';
import type { EmulatorSnapshot } from '../../src/emulator/index.js';

export interface PolicySpec {
  resource: string;
  consumer: string;
  consumer_selector: string;
  configuration: { action: string; limit?: number; redirect_uri?: string };
}
export interface PermissionItem {
  resource_server_identifier: string;
  permission_name: string;
}
export interface UserPermissions {
  user_id: string;
  permissions: PermissionItem[];
}
export interface ProfileSpec {
  name: string;
  subject_token_type: string;
  action_id: string;
  type: string;
}
export interface TenantConfig {
  rate_limit_policies: PolicySpec[];
  user_permissions: UserPermissions[];
  token_exchange_profiles: ProfileSpec[];
}

/** mulberry32: a small seeded PRNG in [0, 1), so every "random" cut point can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [min, max]. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function configuration(random: () => number): PolicySpec['configuration'] {
  const limit = between(random, 0, 10_000);
  switch (between(random, 0, 3)) {
    case 0:
      return { action: 'allow' };
    case 1:
      return { action: 'block', limit };
    case 2:
      return { action: 'log', limit };
    default:
      return { action: 'redirect', limit, redirect_uri: `https://example.com/slow/${limit}` };
  }
}

export function policy(selector: string, config: PolicySpec['configuration']): PolicySpec {
  return { resource: 'oauth_authentication_api', consumer: 'client', consumer_selector: selector, configuration: config };
}

export function profile(tag: string, i: number): ProfileSpec {
  return {
    name: `Profile ${tag} ${i}`,
    subject_token_type: `urn:tenantform:${tag}:token-${i}`,
    action_id: `act-${tag}-${i}`,
    type: 'custom_authentication',
  };
}

export function permissions(tag: string, count: number, from = 0): PermissionItem[] {
  return Array.from({ length: count }, (_, j) => ({
    resource_server_identifier: `https://api-${(from + j) % 3}.example.com/`,
    permission_name: `${tag}:scope-${from + j}`,
  }));
}

export interface Sizes {
  policies: number;
  profiles: number;
  users: number;
  permissionsPerUser: number;
}

/** A config of the given sizes; `tag` keeps names apart between configs. */
export function buildConfig(random: () => number, tag: string, sizes: Sizes): TenantConfig {
  return {
    rate_limit_policies: Array.from({ length: sizes.policies }, (_, i) =>
      policy(i === 0 ? 'default' : `client_id:${tag}-app-${i}`, configuration(random)),
    ),
    user_permissions: Array.from({ length: sizes.users }, (_, u) => ({
      user_id: `auth0|${tag}-user-${u}`,
      permissions: permissions(tag, sizes.permissionsPerUser),
    })),
    token_exchange_profiles: Array.from({ length: sizes.profiles }, (_, i) => profile(tag, i)),
  };
}

/**
 * The next version of a config: some policies change (replace), some go
 * (delete), new ones come; profiles and permissions only grow, since the API
 * cannot remove them.
 */
export function evolveConfig(random: () => number, base: TenantConfig, tag: string, sizes: Sizes): TenantConfig {
  const policies: PolicySpec[] = [];
  for (const p of base.rate_limit_policies) {
    const roll = random();
    if (roll < 0.2) continue;
    if (roll < 0.4) policies.push(policy(p.consumer_selector, { action: 'block', limit: between(random, 0, 10_000) }));
    else policies.push(p);
  }
  const grown = buildConfig(random, tag, sizes);
  return {
    rate_limit_policies: [...policies, ...grown.rate_limit_policies.filter((p) => p.consumer_selector !== 'default')],
    user_permissions: [
      ...base.user_permissions.map((u, i) => ({
        user_id: u.user_id,
        permissions: [...u.permissions, ...(i % 2 === 0 ? permissions(tag, 2) : [])],
      })),
      ...grown.user_permissions,
    ],
    token_exchange_profiles: [...base.token_exchange_profiles, ...grown.token_exchange_profiles],
  };
}

export function configText(config: TenantConfig): string {
  return JSON.stringify(config, null, 2) + '\n';
}

export function writeConfig(path: string, config: TenantConfig): void {
  writeFileSync(path, configText(config));
}

/** Resource count of a config (one per permission). */
export function resourceCount(config: TenantConfig): number {
  return (
    config.rate_limit_policies.length +
    config.user_permissions.reduce((n, u) => n + u.permissions.length, 0) +
    config.token_exchange_profiles.length
  );
}

/** A tenant's content without server ids and timestamps, sorted: comparable with toEqual. */
export interface TenantContent {
  policies: string[];
  permissions: string[];
  profiles: string[];
}

const policyText = (p: PolicySpec) =>
  JSON.stringify([p.resource, p.consumer, p.consumer_selector, p.configuration.action, p.configuration.limit ?? null, p.configuration.redirect_uri ?? null]);
const profileText = (p: ProfileSpec) => JSON.stringify([p.subject_token_type, p.name, p.action_id, p.type]);
const grantText = (user: string, g: PermissionItem) => JSON.stringify([user, g.resource_server_identifier, g.permission_name]);

/** What the tenant must hold after converging on `config` (permissions de-duplicated, as the API does). */
export function expectedContent(config: TenantConfig): TenantContent {
  const permissionSet = new Set(config.user_permissions.flatMap((u) => u.permissions.map((g) => grantText(u.user_id, g))));
  return {
    policies: config.rate_limit_policies.map(policyText).sort(),
    permissions: [...permissionSet].sort(),
    profiles: config.token_exchange_profiles.map(profileText).sort(),
  };
}

/** What the emulator holds, duplicates kept (so a duplicate shows up as a difference). */
export function tenantContent(snapshot: EmulatorSnapshot): TenantContent {
  return {
    policies: snapshot.rateLimitPolicies.map(policyText).sort(),
    permissions: Object.entries(snapshot.userPermissions)
      .flatMap(([user, grants]) => grants.map((g) => grantText(user, g)))
      .sort(),
    profiles: snapshot.tokenExchangeProfiles.map(profileText).sort(),
  };
}

export interface StateResource {
  kind: string;
  address: string;
  id: string | null;
  adopted?: boolean;
  attributes: Record<string, unknown>;
}
export interface StateFile {
  format_version: number;
  lineage: string;
  serial: number;
  resources: StateResource[];
}

export function readStateFile(path: string): StateFile {
  return JSON.parse(readFileSync(path, 'utf8')) as StateFile;
}

/** Addresses a config declares. */
export function desiredAddresses(config: TenantConfig): string[] {
  return [
    ...config.rate_limit_policies.map((p) =>
      formatAddress('rate_limit_policy', [p.resource, p.consumer, p.consumer_selector]),
    ),
    ...config.user_permissions.flatMap((u) =>
      u.permissions.map((g) =>
        formatAddress('user_permission', [u.user_id, g.resource_server_identifier, g.permission_name]),
      ),
    ),
    ...config.token_exchange_profiles.map((p) => formatAddress('token_exchange_profile', [p.subject_token_type])),
  ].sort();
}

/**
 * Checks the state against the tenant: it lists exactly the desired
 * addresses; every policy and profile carries the emulator's id for that
 * identity, unless it was adopted through 409 (then id null and adopted:
 * true); permissions carry no id. Returns the problems found (empty = fine)
 * and how many resources were adopted.
 */
export function stateProblems(
  state: StateFile,
  config: TenantConfig,
  snapshot: EmulatorSnapshot,
): { problems: string[]; adopted: number } {
  const problems: string[] = [];
  const addresses = state.resources.map((r) => r.address).sort();
  const want = desiredAddresses(config);
  if (JSON.stringify(addresses) !== JSON.stringify(want)) {
    const have = new Set(addresses);
    const wanted = new Set(want);
    problems.push(
      `state addresses differ: missing ${want.filter((a) => !have.has(a)).join(' ')}; extra ${addresses.filter((a) => !wanted.has(a)).join(' ')}`,
    );
  }
  const ids = new Map<string, string>();
  for (const p of snapshot.rateLimitPolicies)
    ids.set(formatAddress('rate_limit_policy', [p.resource, p.consumer, p.consumer_selector]), p.id);
  for (const p of snapshot.tokenExchangeProfiles)
    ids.set(formatAddress('token_exchange_profile', [p.subject_token_type]), p.id);
  let adopted = 0;
  for (const r of state.resources) {
    if (r.kind === 'user_permission') {
      if (r.id !== null || r.adopted) problems.push(`${r.address}: a permission must have no id and no adopted flag`);
      continue;
    }
    if (r.adopted === true) {
      adopted += 1;
      if (r.id !== null) problems.push(`${r.address}: adopted but carries id ${r.id}`);
    } else if (r.id === null || r.id !== ids.get(r.address)) {
      problems.push(`${r.address}: id ${String(r.id)} is not the tenant's id ${String(ids.get(r.address))}`);
    }
  }
  return { problems, adopted };
}
