/**
 * Building request paths from ids. Every id becomes exactly one path segment:
 * percent-encoded with encodeURIComponent, so "/", "?", "#", "%" and "|" cannot
 * change the path's shape. Ids that are dot segments ("." or "..") or empty
 * would be folded away by URL normalisation, so they are refused.
 */

export class InvalidPathIdError extends Error {
  readonly code = 'API_INVALID_ID';
  constructor(readonly label: string) {
    super(`${label} must be a non-empty id other than "." or ".."`);
    this.name = 'InvalidPathIdError';
  }
}

/** One encoded path segment for `id`; throws InvalidPathIdError for "", "." and "..". */
export function encodeSegment(id: string, label = 'id'): string {
  if (id === '' || id === '.' || id === '..') throw new InvalidPathIdError(label);
  return encodeURIComponent(id);
}

/** Joins the base path (e.g. /api/v2) with literal parts and encoded ids. */
export function joinPath(basePath: string, ...parts: string[]): string {
  return `${basePath.replace(/\/+$/, '')}/${parts.join('/')}`;
}
