/**
 * Access tokens: a static bearer token used as given, or client credentials
 * exchanged at the token endpoint. A fetched token is cached until shortly
 * before it expires (by the injected clock); concurrent callers share one
 * token request; after a 401 the token is dropped so exactly one new one is
 * fetched.
 */

export interface TokenSource {
  /** A token to send now. */
  get(signal?: AbortSignal): Promise<string>;
  /** Drops `token` after the API refused it; false when no other token can be had. */
  invalidate(token: string): boolean;
  /** Token requests made so far. */
  readonly fetches: number;
}

export function staticTokenSource(token: string): TokenSource {
  return {
    get: () => Promise.resolve(token),
    invalidate: () => false,
    fetches: 0,
  };
}

export interface FetchedToken {
  accessToken: string;
  /** Lifetime in seconds, from expires_in. */
  expiresInSec: number;
}

/** Lifetime assumed when the token endpoint sends no expires_in. */
export const DEFAULT_TOKEN_LIFETIME_SEC = 3600;

/** How long before expiry a token counts as stale: 10 % of its lifetime, at most 60 s. */
export function refreshMarginMs(lifetimeSec: number): number {
  return Math.min(60_000, lifetimeSec * 100);
}

export function cachingTokenSource(
  fetchToken: (signal?: AbortSignal) => Promise<FetchedToken>,
  now: () => number,
): TokenSource {
  let cached: { token: string; staleAt: number } | null = null;
  let pending: Promise<string> | null = null;
  let fetches = 0;

  const refresh = (signal?: AbortSignal): Promise<string> => {
    fetches += 1;
    const started = now();
    const request = fetchToken(signal).then((t) => {
      const lifetimeMs = t.expiresInSec * 1000;
      cached = { token: t.accessToken, staleAt: started + lifetimeMs - refreshMarginMs(t.expiresInSec) };
      return t.accessToken;
    });
    pending = request;
    // Whatever the outcome, the next caller after this one decides afresh.
    void request.then(
      () => (pending = pending === request ? null : pending),
      () => (pending = pending === request ? null : pending),
    );
    return request;
  };

  return {
    get(signal) {
      if (cached && now() < cached.staleAt) return Promise.resolve(cached.token);
      return pending ?? refresh(signal);
    },
    invalidate(token) {
      if (cached?.token === token) cached = null;
      return true;
    },
    get fetches() {
      return fetches;
    },
  };
}
