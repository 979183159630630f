/**
 * What a rate limit policy means, as the service's public docs describe it:
 * who a selector names, which of an application's groups it belongs to, and
 * what a configuration does to the requests it counts. Pure data and
 * functions; precedence.ts decides which policy wins for an application.
 */
import { rateLimitPolicy, type Attributes, type SourcePosition } from '../resources/index.js';
import type { RateLimitPolicyConfiguration } from '../schemas/types.js';

/** The two groups a selector can name; members share one counter. */
export type GroupSelector = 'third_party_clients' | 'cimd_clients';

export const GROUPS: readonly GroupSelector[] = ['third_party_clients', 'cimd_clients'];

/** The selector of the catch-all policy. */
export const DEFAULT_SELECTOR = 'default';

/** The prefix of a selector that names one application. */
export const CLIENT_PREFIX = 'client_id:';

/** Who a selector names: one application, a group, or every application nothing else names. */
export type SelectorScope =
  { level: 'client'; clientId: string } | { level: 'group'; group: GroupSelector } | { level: 'default' };

/** The scope of a consumer_selector, or null for text that is no selector (the schema refuses it). */
export function scopeOf(selector: string): SelectorScope | null {
  if (selector === DEFAULT_SELECTOR) return { level: 'default' };
  if ((GROUPS as readonly string[]).includes(selector))
    return { level: 'group', group: selector as GroupSelector };
  if (selector.startsWith(CLIENT_PREFIX) && selector.length > CLIENT_PREFIX.length) {
    return { level: 'client', clientId: selector.slice(CLIENT_PREFIX.length) };
  }
  return null;
}

/**
 * The group an application belongs to, from the form of its client id (the
 * docs' rule): ids starting `tpa_` are third-party applications, ids that are
 * `https://` URIs are CIMD clients (a Client ID Metadata Document's URL).
 */
export function groupOf(clientId: string): GroupSelector | null {
  if (clientId.startsWith('tpa_')) return 'third_party_clients';
  if (clientId.startsWith('https://')) return 'cimd_clients';
  return null;
}

/** An application of the tenant, as `GET /clients` describes it; offline only `client_id` is known. */
export interface Application {
  client_id: string;
  name?: string;
  app_type?: string;
  is_first_party?: boolean;
}

/** One rate limit policy of a configuration, as precedence and the rules read it. */
export interface PolicyEntry {
  selector: string;
  scope: SelectorScope;
  configuration: RateLimitPolicyConfiguration;
  address: string;
  source: SourcePosition | null;
}

/** A resource as the review reads it: desired resources and plan changes' `after` both fit. */
export interface ResourceView {
  kind: string;
  address: string;
  attributes: Attributes;
  source?: SourcePosition | null;
}

/** The rate limit policies among `resources` whose selector has a scope, in the order given. */
export function policiesOf(resources: Iterable<ResourceView>): PolicyEntry[] {
  const out: PolicyEntry[] = [];
  for (const r of resources) {
    if (r.kind !== rateLimitPolicy.name) continue;
    const selector = String(r.attributes.consumer_selector);
    const scope = scopeOf(selector);
    if (!scope) continue;
    out.push({
      selector,
      scope,
      configuration: r.attributes.configuration as RateLimitPolicyConfiguration,
      address: r.address,
      source: r.source ?? null,
    });
  }
  return out;
}

/** Actions that turn requests away over the limit: block (429) and redirect. */
export function isEnforcing(configuration: RateLimitPolicyConfiguration | null | undefined): boolean {
  return configuration?.action === 'block' || configuration?.action === 'redirect';
}

/** The per-second limit of a configuration, or null for allow (no limit). */
export function limitOf(configuration: RateLimitPolicyConfiguration | null | undefined): number | null {
  if (!configuration || configuration.action === 'allow') return null;
  return typeof configuration.limit === 'number' ? configuration.limit : null;
}

/** True when a configuration turns away every request: an enforcing action at limit 0. */
export function blocksEverything(configuration: RateLimitPolicyConfiguration | null | undefined): boolean {
  return isEnforcing(configuration) && limitOf(configuration) === 0;
}
