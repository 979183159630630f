/**
 * Which credentials to use, in order: the token file, TENANTFORM_TOKEN,
 * AUTH0_ACCESS_TOKEN, then client credentials from TENANTFORM_CLIENT_ID and
 * TENANTFORM_CLIENT_SECRET or AUTH0_CLIENT_ID and AUTH0_CLIENT_SECRET. A token
 * wins over client credentials set beside it; the credentials then name those
 * (`unused`), so that a refused token's hint says so. There is deliberately
 * no --token flag: process lists and CI logs would show it.
 */
import { readFileSync } from 'node:fs';
import { ApiConfigError } from './errors.js';
import { joined, setting, words, type Wording } from '../resources/settings.js';
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

/**
 * Throws when `token` holds a character an HTTP header cannot carry (a line
 * break, another control character, or one outside Latin-1), naming where it
 * came from and the position, never the token: sent, it would fail every
 * request with an error that names neither.
 */
export function checkTokenCharacters(token: string, source: string | Wording): void {
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(token);
  if (!bad) return;
  const code = bad[0].charCodeAt(0);
  const what =
    bad[0] === '\n' || bad[0] === '\r'
      ? 'a line break'
      : code < 0x20 || code === 0x7f
        ? `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`
        : `a character an HTTP header cannot carry (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  throw new ApiConfigError(
    joined(
      source,
      ` holds ${what} at character ${bad.index + 1} of the token; a token is one line of printable ASCII: set `,
      source,
      ' again without it. Nothing was sent',
    ),
  );
}

/** A token file may hold the bare token or "Bearer <token>", with surrounding whitespace. */
function tokenFromFile(path: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new ApiConfigError(
      words`cannot read ${setting('tokenFile')} ${path}${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  const token = content.trim().replace(/^Bearer\s+/i, '');
  if (token === '') throw new ApiConfigError(words`${setting('tokenFile')} ${path} is empty`);
  if (/\s/.test(token))
    throw new ApiConfigError(
      words`${setting('tokenFile')} ${path} must hold a single token (found whitespace inside)`,
    );
  checkTokenCharacters(token, words`${setting('tokenFile')} ${path}`);
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

/** The client credential variables set beside a token (which wins over them), or undefined. */
function unusedPair(env: Env): string | undefined {
  for (const prefix of ['TENANTFORM', 'AUTH0'])
    if (value(env[`${prefix}_CLIENT_ID`]) && value(env[`${prefix}_CLIENT_SECRET`]))
      return `${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET`;
  return undefined;
}

/** Resolves the credentials to use; throws ApiConfigError naming the ways to provide them. */
export function resolveCredentials(flags: CredentialFlags, env: Env): Credentials {
  if (flags.tokenFile !== undefined) {
    const unused = unusedPair(env);
    return { kind: 'token', token: tokenFromFile(flags.tokenFile), ...(unused ? { unused } : {}) };
  }
  const source = value(env.TENANTFORM_TOKEN) ? 'TENANTFORM_TOKEN' : 'AUTH0_ACCESS_TOKEN';
  const token = value(env[source]);
  if (token) {
    const bare = token.replace(/^Bearer\s+/i, '');
    checkTokenCharacters(bare, source);
    const unused = unusedPair(env);
    return { kind: 'token', token: bare, source, ...(unused ? { unused } : {}) };
  }
  const creds = pair(env, 'TENANTFORM') ?? pair(env, 'AUTH0');
  if (creds) return creds;
  throw new ApiConfigError(
    words`no API credentials: set TENANTFORM_TOKEN (or AUTH0_ACCESS_TOKEN), pass ${setting('tokenFile')} FILE, or set TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET (or AUTH0_CLIENT_ID and AUTH0_CLIENT_SECRET)`,
  );
}
