/**
 * Who may call the emulator: the clients, the tokens they get from the token
 * endpoint (client credentials) and the check of a bearer token on each API
 * request.
 * Which scope each operation needs is the operation descriptor's (api.ts
 * runOperation demands the served descriptor's scope).
 */
import { timingSafeEqual } from 'node:crypto';
import { HttpError, unauthorized } from './errors.js';
import { signJwt, verifyJwt } from './jwt.js';
import type { EmulatorClient, IssueTokenOptions } from './types.js';

export interface Principal {
  clientId: string;
  scopes: ReadonlySet<string>;
}

export type Identification = { principal: Principal } | { error: HttpError };

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface AuthorityOptions {
  origin: string;
  secret: string;
  clients: EmulatorClient[];
  now: () => number;
  lifetimeSec: number;
}

function oauthError(status: number, code: string, message: string): HttpError {
  return new HttpError(status, message, code, {}, code);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Client id and secret from an HTTP Basic header, if one is present and well formed. */
function basicCredentials(authorization: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

export class Authority {
  private readonly clients = new Map<string, EmulatorClient>();

  constructor(private readonly opts: AuthorityOptions) {
    for (const client of opts.clients) this.clients.set(client.clientId, client);
  }

  /** The audience tokens are issued for: `<origin>/api/v2/`. */
  get audience(): string {
    return `${this.opts.origin}/api/v2/`;
  }

  private nowSec(): number {
    return Math.floor(this.opts.now() / 1000);
  }

  issue(clientId: string, scopes: readonly string[], expiresInSec = this.opts.lifetimeSec): string {
    const iat = this.nowSec();
    return signJwt(
      {
        iss: `${this.opts.origin}/`,
        sub: `${clientId}@clients`,
        aud: this.audience,
        iat,
        exp: iat + expiresInSec,
        scope: scopes.join(' '),
        gty: 'client-credentials',
        azp: clientId,
      },
      this.opts.secret,
    );
  }

  /** issueToken of the handle: defaults to the first (demo) client and all of its scopes. */
  issueFor(defaultClientId: string, opts: IssueTokenOptions = {}): string {
    const clientId = opts.clientId ?? defaultClientId;
    const scopes = opts.scopes ?? this.clients.get(clientId)?.scopes ?? [];
    return this.issue(clientId, scopes, opts.expiresInSec);
  }

  /** Checks an Authorization header; the error is a 401 ready to send. */
  identify(authorization: string | undefined): Identification {
    if (authorization === undefined || authorization.trim() === '') {
      return {
        error: unauthorized('Missing authentication: send Authorization: Bearer <token>', 'missing_token'),
      };
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match)
      return { error: unauthorized('Bad HTTP authentication header format: expected Bearer <token>') };
    const result = verifyJwt(match[1]!, this.opts.secret, this.nowSec());
    if (!result.ok) {
      const messages = {
        malformed: 'Invalid token: not a JWT',
        signature: 'Invalid token: the signature does not match',
        expired: 'Expired token',
        claims: 'Invalid token: claims missing or of the wrong type',
      } as const;
      return { error: unauthorized(messages[result.reason]) };
    }
    const { claims } = result;
    const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== `${this.opts.origin}/` || !auds.includes(this.audience)) {
      return { error: unauthorized('Invalid token: issuer or audience is not this tenant') };
    }
    const client = this.clients.get(claims.azp);
    if (!client || claims.sub !== `${claims.azp}@clients`) {
      return { error: unauthorized('Invalid token: the client does not exist') };
    }
    if (client.global === false) {
      return { error: unauthorized('Invalid token: the client is not global', 'client_not_global') };
    }
    const scopes = new Set(claims.scope.split(' ').filter((s) => s !== ''));
    return { principal: { clientId: client.clientId, scopes } };
  }

  /** 403 naming the missing scope, or nothing when the principal holds it. */
  requireScope(principal: Principal, scope: string): void {
    if (!principal.scopes.has(scope)) {
      throw new HttpError(403, `Insufficient scope, expected any of: ${scope}`, 'insufficient_scope');
    }
  }

  /**
   * The token endpoint: client credentials from the body (client_id,
   * client_secret) or an HTTP Basic header. `acceptedAudiences` lists the
   * audience values that name this tenant.
   */
  grant(
    params: Record<string, unknown>,
    authorization: string | undefined,
    acceptedAudiences: string[],
  ): TokenResponse {
    const text = (key: string): string | undefined =>
      typeof params[key] === 'string' ? params[key] : undefined;
    const grantType = text('grant_type');
    if (grantType === undefined)
      throw oauthError(400, 'invalid_request', 'Missing required parameter: grant_type');
    if (grantType !== 'client_credentials') {
      throw oauthError(400, 'unsupported_grant_type', `Unsupported grant type: ${grantType}`);
    }
    const basic = basicCredentials(authorization);
    const clientId = text('client_id') ?? basic?.id;
    const secret = text('client_secret') ?? basic?.secret;
    const client = clientId === undefined ? undefined : this.clients.get(clientId);
    if (!client || secret === undefined || !sameSecret(secret, client.clientSecret)) {
      throw oauthError(401, 'access_denied', 'Unauthorized');
    }
    const audience = text('audience');
    if (audience === undefined)
      throw oauthError(403, 'access_denied', 'Missing required parameter: audience');
    if (!acceptedAudiences.includes(audience)) {
      throw oauthError(403, 'access_denied', `Service not enabled within domain: ${audience}`);
    }
    const requested = text('scope')
      ?.split(' ')
      .filter((s) => s !== '');
    const missing = (requested ?? []).filter((s) => !client.scopes.includes(s));
    if (missing.length > 0) {
      throw oauthError(403, 'access_denied', `Client has not been granted scopes: ${missing.join(', ')}`);
    }
    const scopes = requested ?? client.scopes;
    return {
      access_token: this.issue(client.clientId, scopes),
      token_type: 'Bearer',
      expires_in: this.opts.lifetimeSec,
      scope: scopes.join(' '),
    };
  }
}
