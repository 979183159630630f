/**
 * Forward proxies named by the environment, as curl, Terraform and the Deploy
 * CLI read them: HTTPS_PROXY for https:// origins, HTTP_PROXY for http://
 * ones (the lower-case forms first), NO_PROXY for the hosts reached
 * directly. The matching and the tunnelling are undici's own
 * (EnvHttpProxyAgent); this module only reads and checks the variables, says
 * which proxy an origin goes through, and keeps the credentials a proxy URL
 * may carry out of every message.
 */
import { ApiConfigError } from './errors.js';
import { MASK } from './redact.js';
import type { Env } from './target.js';
import type { ProxySettings } from './types.js';

export type { ProxySettings } from './types.js';

function pick(env: Env, name: string): { url: string; from: string } | undefined {
  for (const key of [name.toLowerCase(), name]) {
    const value = env[key]?.trim();
    if (value) return { url: checkedProxyUrl(value, key), from: key };
  }
  return undefined;
}

/**
 * A proxy URL as undici takes it: `host:port` alone gets `http://` (as curl
 * does); only http:// and https:// proxies. Refused with a one-line error
 * naming the variable (credentials masked).
 */
function checkedProxyUrl(value: string, variable: string): string {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ApiConfigError(`${variable} is not a proxy URL: ${maskCredentials(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiConfigError(
      `${variable} names a ${url.protocol.slice(0, -1)} proxy (${displayProxy(withScheme)}): only http:// and https:// proxies are supported`,
    );
  }
  return withScheme;
}

/** The proxies the environment names, or undefined when it names none (then no proxy code is even loaded). */
export function proxyFromEnv(env: Env): ProxySettings | undefined {
  const http = pick(env, 'HTTP_PROXY');
  const https = pick(env, 'HTTPS_PROXY') ?? http;
  if (!http && !https) return undefined;
  const noProxy = env.no_proxy ?? env.NO_PROXY ?? '';
  return { ...(http ? { http } : {}), ...(https ? { https } : {}), noProxy };
}

/** `user:password@` of a URL-ish text replaced by the mask. */
function maskCredentials(text: string): string {
  return text.replace(
    /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?[^/@\s]*@/,
    (_m, scheme: string | undefined) => `${scheme ?? ''}${MASK}@`,
  );
}

/** A proxy URL to show: origin only, credentials masked (`http://[REDACTED]@proxy:3128`). */
export function displayProxy(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.username || u.password ? `${MASK}@` : ''}${u.host}`;
}

/** The secrets a proxy URL carries, in every form they could be printed in: user, password, both, and Basic's. */
export function proxySecrets(proxy: ProxySettings | undefined): string[] {
  const secrets: string[] = [];
  for (const p of [proxy?.http, proxy?.https]) {
    if (!p) continue;
    const u = new URL(p.url);
    if (!u.username && !u.password) continue;
    const user = decodeURIComponent(u.username);
    const password = decodeURIComponent(u.password);
    const pair = `${user}:${password}`;
    secrets.push(u.username, u.password, user, password, pair, `${u.username}:${u.password}`);
    secrets.push(Buffer.from(pair).toString('base64'));
  }
  return secrets.filter((s) => s.length > 0);
}

/** Whether NO_PROXY lets `host` (port `port`) be reached directly: undici's rule, restated for messages only. */
function bypassed(noProxy: string, host: string, port: number): boolean {
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .some((entry) => {
      const m = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[(.+)\](:\d+)?$/, '$1$2'))!;
      const name = m[1]!.replace(/^\*?\./, '').toLowerCase();
      if (m[2] && Number(m[2]) !== port) return false;
      return name === '*' || host === name || host.endsWith(`.${name}`);
    });
}

/**
 * The proxy an origin is reached through, as undici will choose it, for
 * messages ("through the proxy http://proxy:3128 (HTTPS_PROXY)"); undefined
 * when it is reached directly.
 */
export function proxyFor(proxy: ProxySettings | undefined, origin: string): string | undefined {
  if (!proxy) return undefined;
  const u = new URL(origin);
  const chosen = u.protocol === 'https:' ? proxy.https : proxy.http;
  if (!chosen) return undefined;
  const host = u.hostname.replace(/^\[(.+)\]$/, '$1').toLowerCase();
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  if (bypassed(proxy.noProxy, host, port)) return undefined;
  return `${displayProxy(chosen.url)} (${chosen.from})`;
}
