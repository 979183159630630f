/**
 * The rules of stage `config`: what a configuration alone shows, before
 * anything is read or sent. Run by validate, plan and apply.
 *
 * How a subject_token_type is matched against the service's reserved
 * namespaces (http://auth0.com, https://auth0.com, http://okta.com,
 * https://okta.com, urn:ietf, urn:auth0, urn:okta): on the URI's parts, as
 * URIs compare them — case-insensitively, since schemes, hosts and URN
 * namespace identifiers all are. An http(s) URI is reserved when its host is
 * auth0.com or okta.com, compared canonically (`AUTH0.com.`, with its trailing
 * dot, is auth0.com; any port, any path; a subdomain such as
 * login.okta.com is not in the list and passes); a URN when its namespace
 * identifier (between the first and second colon) is ietf, auth0 or okta
 * (`urn:ietfx:…` passes). The scheme rule asks for `https://` or `urn:`,
 * case-insensitively.
 */
import { tokenExchangeProfile } from '../resources/index.js';
import {
  DEFAULT_SELECTOR,
  isEnforcing,
  limitOf,
  policiesOf,
  type PolicyEntry,
  type ResourceView,
} from './policy.js';
import { settle, type Finding, type GuardrailSettings } from './rules.js';

type Found = Omit<Finding, 'severity'>;

const RESERVED_HOSTS = ['auth0.com', 'okta.com'];
const RESERVED_URN_NAMESPACES = ['ietf', 'auth0', 'okta'];

/** The reserved namespace a subject_token_type is in, as the service's list names it, or null. */
export function reservedNamespace(value: string): string | null {
  const lower = value.toLowerCase();
  if (lower.startsWith('urn:')) {
    const nid = lower.slice(4).split(':')[0]!;
    return RESERVED_URN_NAMESPACES.includes(nid) ? `urn:${nid}` : null;
  }
  const scheme = /^(https?):\/\//.exec(lower)?.[1];
  if (!scheme) return null;
  let host: string;
  try {
    // The URL parser lower-cases, decodes %2E and maps full-width letters; a fully qualified
    // name's trailing dot (auth0.com.) names the same host, so it goes too.
    host = new URL(value).hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return null;
  }
  return RESERVED_HOSTS.includes(host) ? `${scheme}://${host}` : null;
}

/** True when a subject_token_type starts with a scheme the service accepts: https:// or urn:. */
export function hasAcceptedScheme(value: string): boolean {
  return /^(https:\/\/|urn:)/i.test(value);
}

function tokenTypeFindings(resources: readonly ResourceView[]): Found[] {
  const out: Found[] = [];
  for (const r of resources) {
    if (r.kind !== tokenExchangeProfile.name) continue;
    const value = String(r.attributes.subject_token_type);
    const at = { address: r.address, source: r.source ?? null };
    if (!hasAcceptedScheme(value)) out.push({ rule: 'token-type-scheme', ...at, params: { value } });
    const namespace = reservedNamespace(value);
    if (namespace) out.push({ rule: 'token-type-reserved', ...at, params: { value, namespace } });
  }
  return out;
}

function policyAt(p: PolicyEntry): Pick<Found, 'address' | 'source'> {
  return { address: p.address, source: p.source };
}

function sharedLimitZero(policies: readonly PolicyEntry[]): Found[] {
  return policies
    .filter(
      (p) => p.scope.level !== 'client' && isEnforcing(p.configuration) && limitOf(p.configuration) === 0,
    )
    .map((p) => ({
      rule: 'shared-limit-zero',
      ...policyAt(p),
      params: { selector: p.selector, action: p.configuration.action },
    }));
}

function noDefault(policies: readonly PolicyEntry[]): Found[] {
  if (policies.length === 0 || policies.some((p) => p.selector === DEFAULT_SELECTOR)) return [];
  return [
    {
      rule: 'no-default-policy',
      address: null,
      source: policies[0]!.source,
      params: { policies: policies.length },
    },
  ];
}

/** True when `host` is one of `allowed`: equal, or below a `*.domain` entry; case-insensitive. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith('*.') ? h.endsWith(e.slice(1)) && h.length > e.length - 1 : h === e;
  });
}

function redirectHosts(policies: readonly PolicyEntry[], allowed: readonly string[] | undefined): Found[] {
  if (allowed === undefined) return [];
  const out: Found[] = [];
  for (const p of policies) {
    if (p.configuration.action !== 'redirect') continue;
    let host: string;
    try {
      host = new URL(p.configuration.redirect_uri).hostname;
    } catch {
      continue; // the schema reports a redirect_uri that is no URI
    }
    if (!hostAllowed(host, allowed)) {
      out.push({
        rule: 'redirect-host',
        ...policyAt(p),
        params: { selector: p.selector, host, allowed: allowed.join(', ') },
      });
    }
  }
  return out;
}

/**
 * The findings of the `config` rules over a configuration's resources (valid
 * ones: after the schema check), at the severities the settings give them,
 * in the order of the rules, each rule's in the order of the resources.
 */
export function checkConfig(resources: readonly ResourceView[], settings: GuardrailSettings): Finding[] {
  const policies = policiesOf(resources);
  return settle(
    [
      ...tokenTypeFindings(resources),
      ...sharedLimitZero(policies),
      ...noDefault(policies),
      ...redirectHosts(policies, settings.redirectHosts),
    ],
    settings,
  );
}
