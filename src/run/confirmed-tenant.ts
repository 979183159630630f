/**
 * Credentials go only to a tenant named outside the repository. In GitOps the
 * repository is what a pull request edits, and CI runs plan on pull requests
 * with the secrets in its environment: a host that only tenantform.yaml names
 * (an environment's `domain:` or `base_url:`) must never receive a token or a
 * client secret. A target counts as confirmed when
 *
 * - the command line names it (ConnectionRequest.named): whoever runs the
 *   command chose it;
 * - the process environment names it: TENANTFORM_BASE_URL, TENANTFORM_DOMAIN
 *   or AUTH0_DOMAIN is that host (the domain set beside the secret), or
 *   TENANTFORM_ALLOWED_HOSTS lists it (hosts, host:port or URLs, separated by
 *   commas or spaces; a host without a port allows any port of it).
 *
 * Loopback hosts (the emulator) follow the same rule: the emulator prints
 * `export TENANTFORM_BASE_URL=…`, which confirms it; an environment of
 * tenantform.yaml that names one is confirmed by TENANTFORM_ALLOWED_HOSTS.
 * Checked before the API client is made, so a refusal sends nothing at all.
 */
import type { Target } from '../api/types.js';
import { RunError } from './errors.js';
import type { ConfigInput, TargetRequest } from './requests.js';

/** The variable that lists the hosts credentials may be sent to besides the one the environment names. */
export const ALLOWED_HOSTS_VARIABLE = 'TENANTFORM_ALLOWED_HOSTS';

const TARGET_VARIABLES = ['TENANTFORM_BASE_URL', 'TENANTFORM_DOMAIN', 'AUTH0_DOMAIN'] as const;

interface HostPattern {
  hostname: string;
  /** undefined: any port. */
  port?: string;
}

/** A host name compared canonically: lower case, without a trailing dot or IPv6 brackets. */
function canonical(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '');
}

/** `entry` (host, host:port or URL) as a pattern; null when it is none. */
function patternOf(entry: string): HostPattern | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `https://${entry}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  const explicitPort = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^/:]*):\d+/i.test(withScheme);
  return {
    hostname: canonical(url.hostname),
    ...(explicitPort || withScheme !== `https://${entry}` ? { port: url.port } : {}),
  };
}

/** The hosts the process environment confirms. */
function confirmedPatterns(env: Record<string, string | undefined>): HostPattern[] {
  const patterns: HostPattern[] = [];
  for (const name of TARGET_VARIABLES) {
    const value = env[name]?.trim();
    const pattern = value ? patternOf(value) : null;
    // The variable names one target: a host alone means its default port.
    if (pattern) patterns.push({ ...pattern, port: pattern.port ?? '' });
  }
  for (const entry of (env[ALLOWED_HOSTS_VARIABLE] ?? '').split(/[\s,]+/)) {
    const pattern = entry === '' ? null : patternOf(entry);
    if (pattern) patterns.push(pattern);
  }
  return patterns;
}

function matches(pattern: HostPattern, url: URL): boolean {
  return (
    pattern.hostname === canonical(url.hostname) && (pattern.port === undefined || pattern.port === url.port)
  );
}

/**
 * Throws RunError TARGET_NOT_CONFIRMED when `target` comes from
 * tenantform.yaml alone (the command line names none: `named`, and the
 * environment of `input` names a target) and the process environment does not
 * confirm its host; says the target and how to confirm it, never a secret.
 */
export function checkTargetConfirmed(
  target: Target,
  named: TargetRequest,
  input: ConfigInput,
  env: Record<string, string | undefined>,
): void {
  if (named.domain !== undefined || named.baseUrl !== undefined) return;
  const own = input.environment?.target;
  if (!own || (own.domain === undefined && own.baseUrl === undefined)) return;
  const url = new URL(target.baseUrl);
  if (confirmedPatterns(env).some((p) => matches(p, url))) return;
  const key = own.baseUrl !== undefined ? 'base_url' : 'domain';
  throw new RunError(
    { code: 'TARGET_NOT_CONFIRMED', env: input.env, baseUrl: target.baseUrl, host: url.host, key },
    `environment ${input.env}: tenantform.yaml names the tenant at ${target.baseUrl} (${key}), and nothing outside ` +
      'the repository confirms it, so no credentials go there (a pull request can edit tenantform.yaml). Nothing was ' +
      `sent. To confirm this tenant, set ${ALLOWED_HOSTS_VARIABLE}=${url.host} where the credentials are set (in CI, ` +
      'beside the secrets; several hosts separated by commas), or name it with TENANTFORM_DOMAIN, ' +
      'TENANTFORM_BASE_URL or the command line.',
  );
}
