/**
 * Where the API is: from the base URL or domain a run is given, else
 * TENANTFORM_BASE_URL, TENANTFORM_DOMAIN, AUTH0_DOMAIN. HTTPS only, except plain HTTP to a loopback
 * host (the emulator).
 */
import { isIP } from 'node:net';
import { ApiConfigError } from './errors.js';
import { setting, words, type SettingRef } from '../resources/settings.js';

/** Where a value came from: a setting of the run, or an environment variable by name. */
type Source = SettingRef | string;
import type { Target } from './types.js';

export type Env = Record<string, string | undefined>;

export interface TargetFlags {
  domain?: string;
  baseUrl?: string;
  audience?: string;
}

const API_PATH = '/api/v2';

function value(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** True for localhost, 127.0.0.0/8 and ::1 (URL hostnames, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(host);
  return false;
}

function parseUrl(raw: string, source: Source): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiConfigError(words`${source} is not a valid URL: "${raw}"`);
  }
  if (url.username || url.password) {
    throw new ApiConfigError(
      words`${source} must not contain a user name or password; use the credential variables instead`,
    );
  }
  if (url.search || url.hash) throw new ApiConfigError(words`${source} must not contain a query or fragment`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ApiConfigError(
      words`${source} uses plain http:// for ${url.hostname}; only https:// is allowed, except for loopback hosts (127.0.0.1, localhost, ::1)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiConfigError(words`${source} must be an https:// URL (got ${url.protocol}//)`);
  }
  return url;
}

function fromBaseUrl(raw: string, source: Source): URL {
  const url = parseUrl(raw, source);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') url.pathname = API_PATH;
  else if (path.endsWith(API_PATH)) url.pathname = path;
  else
    throw new ApiConfigError(
      words`${source} must be the API's base URL: a URL ending in ${API_PATH}, or an origin alone, to which ${API_PATH} is added (e.g. https://tenant.example.com${API_PATH} or http://127.0.0.1:4000; got "${raw}")`,
    );
  return url;
}

function fromDomain(raw: string, source: Source): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  const url = parseUrl(withScheme, source);
  if (url.protocol !== 'https:') {
    throw new ApiConfigError(
      words`${source} always means https://; use ${setting('baseUrl')} for a plain-http loopback target`,
    );
  }
  if (url.pathname.replace(/\/+$/, '') !== '') {
    throw new ApiConfigError(
      words`${source} must be a host name such as tenant.example.com, without a path (got "${raw}")`,
    );
  }
  url.pathname = API_PATH;
  return url;
}

/** Resolves the API target; flags win over the environment. Throws ApiConfigError. */
export function resolveTarget(flags: TargetFlags, env: Env): Target {
  const flagBase = value(flags.baseUrl);
  const flagDomain = value(flags.domain);
  if (flagBase && flagDomain)
    throw new ApiConfigError(words`give either ${setting('domain')} or ${setting('baseUrl')}, not both`);
  let url: URL;
  if (flagBase) url = fromBaseUrl(flagBase, setting('baseUrl'));
  else if (flagDomain) url = fromDomain(flagDomain, setting('domain'));
  else if (value(env.TENANTFORM_BASE_URL))
    url = fromBaseUrl(value(env.TENANTFORM_BASE_URL)!, 'TENANTFORM_BASE_URL');
  else if (value(env.TENANTFORM_DOMAIN)) url = fromDomain(value(env.TENANTFORM_DOMAIN)!, 'TENANTFORM_DOMAIN');
  else if (value(env.AUTH0_DOMAIN)) url = fromDomain(value(env.AUTH0_DOMAIN)!, 'AUTH0_DOMAIN');
  else {
    throw new ApiConfigError(
      words`no API target: pass ${setting('domain')} DOMAIN or ${setting('baseUrl')} URL, or set TENANTFORM_DOMAIN, TENANTFORM_BASE_URL or AUTH0_DOMAIN`,
    );
  }
  const origin = url.origin;
  const audience = value(flags.audience) ?? value(env.TENANTFORM_AUDIENCE) ?? `${origin}${API_PATH}/`;
  return { baseUrl: `${origin}${url.pathname}`, origin, tokenUrl: `${origin}/oauth/token`, audience };
}
