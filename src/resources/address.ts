import { isKindName, KINDS, type KindName } from './kinds.js';

/**
 * Address of a resource: its kind and identity parts as JSON strings,
 * e.g. rate_limit_policy["oauth_authentication_api","client","default"].
 * Unambiguous for any characters in the parts, and parseAddress reverses it.
 */
export function formatAddress(kind: KindName, identity: readonly string[]): string {
  // Made for every resource of every config and state read. An array of
  // strings stringifies to exactly ["part","part"], and join copies the kind
  // and it into one flat string: `kind + …` would keep a pair of pieces per
  // address, flattened again (a second copy) the first time a Map hashes it.
  return [kind, JSON.stringify(identity)].join('');
}

export class AddressError extends Error {
  readonly code = 'ADDRESS_INVALID';
}

/** Parses an address written by formatAddress. Throws AddressError naming what is wrong. */
export function parseAddress(address: string): { kind: KindName; identity: string[] } {
  const open = address.indexOf('[');
  if (open < 0 || !address.endsWith(']')) {
    throw new AddressError(
      `"${address}" is not an address; expected kind["part",...], e.g. token_exchange_profile["urn:example:token"]`,
    );
  }
  const kind = address.slice(0, open);
  if (!isKindName(kind)) {
    throw new AddressError(
      `unknown resource kind "${kind}" in address; expected one of ${KINDS.map((k) => k.name).join(', ')}`,
    );
  }
  let parts: unknown;
  try {
    parts = JSON.parse(address.slice(open));
  } catch {
    throw new AddressError(`"${address}" has an identity that is not a JSON list of strings`);
  }
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every((p) => typeof p === 'string')) {
    throw new AddressError(`"${address}" has an identity that is not a JSON list of strings`);
  }
  return { kind, identity: parts as string[] };
}
