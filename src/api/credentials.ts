/**
 * Which credentials to use, in order: --token-file, TENANTFORM_TOKEN,
 * AUTH0_ACCESS_TOKEN, then client credentials from TENANTFORM_CLIENT_ID and
 * TENANTFORM_CLIENT_SECRET or AUTH0_CLIENT_ID and AUTH0_CLIENT_SECRET. There is
 * deliberately no --token flag: process lists and CI logs would show it.
 */
import { readFileSync } from 'node:fs';
import { ApiConfigError } from './errors.js';
import type { Env } from './target.js';
import type { Credentials } from './types.js';

export interface CredentialFlags {
  /** Path of a file holding a bearer token (absolute, or relative to the process cwd). */
  tokenFile?: string;
}

function value(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** A token file may hold the bare token or "Bearer <token>", with surrounding whitespace. */
function tokenFromFile(path: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new ApiConfigError(
      `cannot read --token-file ${path}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  const token = content.trim().replace(/^Bearer\s+/i, '');
  if (token === '') throw new ApiConfigError(`--token-file ${path} is empty`);
  if (/\s/.test(token))
    throw new ApiConfigError(`--token-file ${path} must hold a single token (found whitespace inside)`);
  return token;
}

function pair(env: Env, prefix: 'TENANTFORM' | 'AUTH0'): Credentials | undefined {
  const clientId = value(env[`${prefix}_CLIENT_ID`]);
  const clientSecret = value(env[`${prefix}_CLIENT_SECRET`]);
  if (clientId && clientSecret) return { kind: 'client_credentials', clientId, clientSecret };
  if (clientId) throw new ApiConfigError(`${prefix}_CLIENT_ID is set but ${prefix}_CLIENT_SECRET is not`);
  if (clientSecret) throw new ApiConfigError(`${prefix}_CLIENT_SECRET is set but ${prefix}_CLIENT_ID is not`);
  return undefined;
}

/** Resolves the credentials to use; throws ApiConfigError naming the ways to provide them. */
export function resolveCredentials(flags: CredentialFlags, env: Env): Credentials {
  if (flags.tokenFile !== undefined) return { kind: 'token', token: tokenFromFile(flags.tokenFile) };
  const token = value(env.TENANTFORM_TOKEN) ?? value(env.AUTH0_ACCESS_TOKEN);
  if (token) return { kind: 'token', token: token.replace(/^Bearer\s+/i, '') };
  const creds = pair(env, 'TENANTFORM') ?? pair(env, 'AUTH0');
  if (creds) return creds;
  throw new ApiConfigError(
    'no API credentials: set TENANTFORM_TOKEN (or AUTH0_ACCESS_TOKEN), pass --token-file FILE, ' +
      'or set TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET (or AUTH0_CLIENT_ID and AUTH0_CLIENT_SECRET)',
  );
}
