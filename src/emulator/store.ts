/**
 * The emulated tenant's data and the service's rules over it: identity of a
 * policy (resource + consumer + consumer_selector) and of a profile
 * (subject_token_type), ids, timestamps, which users exist. Bodies reaching
 * this store are already schema-valid.
 */
import { randomBytes } from 'node:crypto';
import { HttpError, notFound } from './errors.js';
import type { Ordered } from './pages.js';
import type {
  EmulatorSnapshot,
  PermissionGrant,
  RateLimitPolicy,
  RateLimitPolicyConfiguration,
  TokenExchangeProfile,
} from './types.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters from [A-Za-z0-9], uniformly, from the crypto random source. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export interface PolicyRequest {
  resource: string;
  consumer: string;
  consumer_selector: string;
  configuration: RateLimitPolicyConfiguration;
}

export interface ProfileRequest {
  name: string;
  subject_token_type: string;
  action_id: string;
  type: string;
}

function policyKey(p: PolicyRequest): string {
  return `${p.resource}\u0000${p.consumer}\u0000${p.consumer_selector}`;
}

function copyConfiguration(c: RateLimitPolicyConfiguration): RateLimitPolicyConfiguration {
  const out: RateLimitPolicyConfiguration = { action: c.action };
  if (c.limit !== undefined) out.limit = c.limit;
  if (c.redirect_uri !== undefined) out.redirect_uri = c.redirect_uri;
  return out;
}

function copyPolicy(p: RateLimitPolicy): RateLimitPolicy {
  return { ...p, configuration: copyConfiguration(p.configuration) };
}

export class TenantStore {
  private policies = new Map<string, RateLimitPolicy>();
  private policyIds = new Map<string, string>();
  private profiles = new Map<string, TokenExchangeProfile>();
  /** Profile id → subject_token_type (the key of `profiles`). */
  private profileIds = new Map<string, string>();
  private permissions = new Map<string, PermissionGrant[]>();
  /** Creation order of policies and profiles by id, for the lists' cursors. */
  private order = new Map<string, number>();
  private nextSeq = 0;
  /** Called after every change (to persist it). */
  onChange: () => void = () => {};

  constructor(
    private readonly users: ReadonlySet<string> | null,
    private readonly now: () => number,
  ) {}

  private timestamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** Places a new policy or profile last in creation order. */
  private created(id: string): void {
    this.order.set(id, this.nextSeq++);
  }

  private ordered<T extends { id: string }>(items: Iterable<T>, copy: (item: T) => T): Ordered<T>[] {
    return [...items]
      .map((item) => ({ seq: this.order.get(item.id) ?? -1, item: copy(item) }))
      .sort((a, b) => a.seq - b.seq);
  }

  /** The policies in creation order; with filters, those whose attributes equal every filter given. */
  listPolicies(filter: Readonly<Record<string, string | undefined>>): Ordered<RateLimitPolicy>[] {
    const given = Object.entries(filter).filter(([, value]) => value !== undefined);
    const matches = [...this.policies.values()].filter((p) =>
      given.every(([name, value]) => (p as unknown as Record<string, unknown>)[name] === value),
    );
    return this.ordered(matches, copyPolicy);
  }

  getPolicy(id: string): RateLimitPolicy {
    const policy = this.policies.get(id);
    if (!policy) throw notFound('The rate limit policy does not exist', 'inexistent_rate_limit_policy');
    return copyPolicy(policy);
  }

  /** The profiles in creation order. */
  listProfiles(): Ordered<TokenExchangeProfile>[] {
    return this.ordered(this.profiles.values(), (p) => ({ ...p }));
  }

  getProfile(id: string): TokenExchangeProfile {
    for (const profile of this.profiles.values()) if (profile.id === id) return { ...profile };
    throw notFound('The token exchange profile does not exist', 'inexistent_token_exchange_profile');
  }

  /** The permissions of a user, in assignment order (404 for a user who does not exist). */
  listPermissions(userId: string): PermissionGrant[] {
    if (!this.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    return (this.permissions.get(userId) ?? []).map((g) => ({ ...g }));
  }

  createPolicy(body: PolicyRequest): RateLimitPolicy {
    const key = policyKey(body);
    if (this.policyIds.has(key)) {
      throw new HttpError(
        409,
        'A rate limit policy with the same resource, consumer and consumer_selector already exists',
        'rate_limit_policy_conflict',
      );
    }
    const at = this.timestamp();
    const policy: RateLimitPolicy = {
      id: `rlp_${randomAlphanumeric(21)}`,
      resource: body.resource,
      consumer: body.consumer,
      consumer_selector: body.consumer_selector,
      configuration: copyConfiguration(body.configuration),
      created_at: at,
      updated_at: at,
    };
    this.policies.set(policy.id, policy);
    this.policyIds.set(key, policy.id);
    this.created(policy.id);
    this.onChange();
    return copyPolicy(policy);
  }

  deletePolicy(id: string): void {
    const policy = this.policies.get(id);
    if (!policy) throw notFound('The rate limit policy does not exist', 'inexistent_rate_limit_policy');
    this.policies.delete(id);
    this.policyIds.delete(policyKey(policy));
    this.order.delete(id);
    this.onChange();
  }

  /** Replaces a policy's configuration; the id stays and updated_at moves on. */
  updatePolicy(id: string, configuration: RateLimitPolicyConfiguration): RateLimitPolicy {
    const policy = this.policies.get(id);
    if (!policy) throw notFound('The rate limit policy does not exist', 'inexistent_rate_limit_policy');
    policy.configuration = copyConfiguration(configuration);
    policy.updated_at = this.laterThan(policy.updated_at);
    this.onChange();
    return copyPolicy(policy);
  }

  /** Now, or a millisecond after `previous` when the clock has not moved past it (an update always changes updated_at). */
  private laterThan(previous: string): string {
    const before = Date.parse(previous);
    const now = this.now();
    return new Date(Number.isNaN(before) || now > before ? now : before + 1).toISOString();
  }

  userExists(userId: string): boolean {
    return this.users === null || this.users.has(userId);
  }

  /** Adds the permissions the user lacks; assigning one the user holds already is a success. */
  assignPermissions(userId: string, grants: readonly PermissionGrant[]): void {
    if (!this.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    const held = this.permissions.get(userId) ?? [];
    const keys = new Set(held.map((g) => `${g.resource_server_identifier}\u0000${g.permission_name}`));
    let added = false;
    for (const g of grants) {
      const key = `${g.resource_server_identifier}\u0000${g.permission_name}`;
      if (keys.has(key)) continue;
      keys.add(key);
      held.push({
        resource_server_identifier: g.resource_server_identifier,
        permission_name: g.permission_name,
      });
      added = true;
    }
    this.permissions.set(userId, held);
    if (added) this.onChange();
  }

  /** Takes the permissions away from the user; one the user does not have is skipped (a success). */
  removePermissions(userId: string, grants: readonly PermissionGrant[]): void {
    if (!this.userExists(userId)) throw notFound('The user does not exist', 'inexistent_user');
    const held = this.permissions.get(userId) ?? [];
    const drop = new Set(grants.map((g) => `${g.resource_server_identifier}\u0000${g.permission_name}`));
    const kept = held.filter((g) => !drop.has(`${g.resource_server_identifier}\u0000${g.permission_name}`));
    if (kept.length === held.length) return;
    this.permissions.set(userId, kept);
    this.onChange();
  }

  private profileById(id: string): TokenExchangeProfile {
    const key = this.profileIds.get(id);
    const profile = key === undefined ? undefined : this.profiles.get(key);
    if (!profile)
      throw notFound('The token exchange profile does not exist', 'inexistent_token_exchange_profile');
    return profile;
  }

  /** Changes a profile's name and/or subject_token_type; a subject_token_type another profile has is a 409. */
  updateProfile(id: string, changes: { name?: string; subject_token_type?: string }): void {
    const profile = this.profileById(id);
    const type = changes.subject_token_type;
    if (type !== undefined && type !== profile.subject_token_type) {
      if (this.profiles.has(type)) {
        throw new HttpError(
          409,
          'A token exchange profile with the same subject_token_type already exists',
          'token_exchange_profile_conflict',
        );
      }
      this.profiles.delete(profile.subject_token_type);
      profile.subject_token_type = type;
      this.profiles.set(type, profile);
      this.profileIds.set(id, type);
    }
    if (changes.name !== undefined) profile.name = changes.name;
    profile.updated_at = this.laterThan(profile.updated_at);
    this.onChange();
  }

  deleteProfile(id: string): void {
    const profile = this.profileById(id);
    this.profiles.delete(profile.subject_token_type);
    this.profileIds.delete(id);
    this.order.delete(id);
    this.onChange();
  }

  createProfile(body: ProfileRequest): TokenExchangeProfile {
    if (this.profiles.has(body.subject_token_type)) {
      throw new HttpError(
        409,
        'A token exchange profile with the same subject_token_type already exists',
        'token_exchange_profile_conflict',
      );
    }
    const at = this.timestamp();
    const profile: TokenExchangeProfile = {
      id: `tep_${randomAlphanumeric(16)}`,
      name: body.name,
      subject_token_type: body.subject_token_type,
      action_id: body.action_id,
      type: body.type,
      created_at: at,
      updated_at: at,
    };
    this.profiles.set(profile.subject_token_type, profile);
    this.profileIds.set(profile.id, profile.subject_token_type);
    this.created(profile.id);
    this.onChange();
    return { ...profile };
  }

  snapshot(): EmulatorSnapshot {
    const userPermissions: Record<string, PermissionGrant[]> = {};
    for (const [user, grants] of this.permissions) {
      if (grants.length > 0) userPermissions[user] = grants.map((g) => ({ ...g }));
    }
    return {
      rateLimitPolicies: [...this.policies.values()].map(copyPolicy),
      userPermissions,
      tokenExchangeProfiles: [...this.profiles.values()].map((p) => ({ ...p })),
    };
  }

  /** Replaces everything with `snapshot` (already checked); does not call onChange. */
  load(snapshot: EmulatorSnapshot): void {
    this.clear();
    for (const p of snapshot.rateLimitPolicies) {
      this.policies.set(p.id, copyPolicy(p));
      this.policyIds.set(policyKey(p), p.id);
      this.created(p.id);
    }
    for (const p of snapshot.tokenExchangeProfiles) {
      this.profiles.set(p.subject_token_type, { ...p });
      this.profileIds.set(p.id, p.subject_token_type);
      this.created(p.id);
    }
    for (const [user, grants] of Object.entries(snapshot.userPermissions)) {
      this.permissions.set(
        user,
        grants.map((g) => ({ ...g })),
      );
    }
  }

  reset(): void {
    this.clear();
    this.onChange();
  }

  private clear(): void {
    this.policies = new Map();
    this.policyIds = new Map();
    this.profiles = new Map();
    this.profileIds = new Map();
    this.permissions = new Map();
    this.order = new Map();
  }
}
