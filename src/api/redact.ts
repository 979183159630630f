/**
 * Masking of secrets in text. The client never builds a log line or an error
 * message from a header or a token-endpoint body, and still passes every such
 * string through a redactor as a second line of defence.
 */

export const MASK = '[REDACTED]';

/** Secrets shorter than this are not masked (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 4;

const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const SECRET_FIELDS =
  /("?(?:access_token|refresh_token|id_token|client_secret|password)"?\s*[:=]\s*)"?[^\s",&}]+"?/gi;

/** Masks each known secret, any Authorization-style credential and secret-named fields. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const sorted = [...secrets]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join(MASK);
  out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${MASK}`);
  return out.replace(SECRET_FIELDS, (_m, prefix: string) => `${prefix}${MASK}`);
}

export interface Redactor {
  /** Remembers a secret to mask from now on. */
  add(secret: string): void;
  redact(text: string): string;
}

/** A redactor that knows the secrets added to it, with their percent-encoded forms. */
export function createRedactor(initial: Iterable<string> = []): Redactor {
  const secrets = new Set<string>();
  const add = (secret: string): void => {
    if (secret.length < MIN_SECRET_LENGTH) return;
    secrets.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) secrets.add(encoded);
    const json = JSON.stringify(secret).slice(1, -1);
    if (json !== secret) secrets.add(json);
  };
  for (const s of initial) add(s);
  return { add, redact: (text) => redact(text, secrets) };
}
