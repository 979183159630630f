/**
 * The two pagination styles of the real API's list operations
 * (management-api-beyond-spec.md), over items in creation order:
 *
 * - checkpoint (rate limit policies, token exchange profiles): `take` (1 to
 *   the list descriptor's `pageSize.max`, default its `pageSize.default`) and `from`, an opaque cursor from the previous
 *   answer's `next`. The answer is `{<itemsKey>: […], next}`; `next` is absent
 *   on the last page. A cursor names the last item served, so items created or
 *   deleted between pages neither repeat nor shift the rest; it is valid for 24
 *   hours.
 * - offset (a user's permissions, applications, APIs): `per_page` (1 to
 *   `pageSize.max`, default `pageSize.default`), 0-based `page` and
 *   `include_totals`: false (the default) answers the bare array, true
 *   `{start, limit, total, <itemsKey>: […]}`; a list whose answer always
 *   carries its total (Actions, `totals: 'always'`) answers
 *   `{total, page, per_page, <itemsKey>: […]}`.
 *
 * A malformed parameter is a 400 (`invalid_query_string`) naming it; a
 * parameter given twice is one too. Parameters a list does not know are
 * ignored.
 */
import type { OperationDescriptor } from '../resources/index.js';
import { badRequest } from './errors.js';

/** A list descriptor's page sizes. */
export type PageSize = NonNullable<OperationDescriptor['pageSize']>;

/** How long a checkpoint cursor stays valid, as the real service documents for profiles. */
export const CURSOR_LIFETIME_MS = 24 * 3_600_000;

/** An item with its place in creation order (larger = created later). */
export interface Ordered<T> {
  seq: number;
  item: T;
}

/** A 400 for a malformed query parameter. */
export function invalid(message: string) {
  return badRequest(`Query validation error: ${message}`, 'invalid_query_string');
}

/** The one value of `name`, or undefined; a parameter given twice is a 400. */
export function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalid(`${name} is given ${values.length} times`);
  return values[0];
}

function wholeNumber(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw invalid(`${name} must be a whole number ${range} (got "${text}")`);
  }
  return Number(text);
}

/** A true/false query parameter; absent is false. */
export function flag(query: URLSearchParams, name: string): boolean {
  const text = single(query, name);
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw invalid(`${name} must be true or false (got "${text}")`);
}

function encodeCursor(list: string, seq: number, nowMs: number): string {
  return Buffer.from(JSON.stringify({ l: list, s: seq, t: nowMs }), 'utf8').toString('base64url');
}

function decodeCursor(list: string, text: string, nowMs: number): number {
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    cursor = undefined;
  }
  const c = cursor as { l?: unknown; s?: unknown; t?: unknown } | undefined;
  if (
    typeof c !== 'object' ||
    c === null ||
    c.l !== list ||
    !Number.isSafeInteger(c.s) ||
    typeof c.t !== 'number'
  ) {
    throw invalid(`from is not a cursor of this list (use the next of the previous page)`);
  }
  if (nowMs - c.t > CURSOR_LIFETIME_MS) throw invalid('from is a cursor older than 24 hours; start again');
  return c.s as number;
}

/**
 * One checkpoint page: the items after the cursor, at most `take`, and a
 * `next` cursor when more follow. `list` tells cursors of different lists apart.
 */
export function checkpointPage<T>(
  list: string,
  items: readonly Ordered<T>[],
  query: URLSearchParams,
  nowMs: number,
  size: PageSize,
): { items: T[]; next?: string } {
  const take = wholeNumber(query, 'take', 1, size.max, size.default);
  const from = single(query, 'from');
  const after = from === undefined || from === '' ? -Infinity : decodeCursor(list, from, nowMs);
  const rest = items.filter((o) => o.seq > after);
  const page = rest.slice(0, take);
  const last = page[page.length - 1];
  return {
    items: page.map((o) => o.item),
    ...(rest.length > take && last ? { next: encodeCursor(list, last.seq, nowMs) } : {}),
  };
}

/**
 * One offset page of a list that answers with its counts without being asked
 * (Actions): {total, page, per_page, <itemsKey>}, as the service sends it
 * (observed): `page` only when the request gave one, `total` only when
 * something matched (`{"actions":[],"per_page":50}`).
 */
export function numberedPage<T>(
  itemsKey: string,
  items: readonly T[],
  query: URLSearchParams,
  size: PageSize,
): { total?: number; page?: number; per_page: number; [key: string]: unknown } {
  const perPage = wholeNumber(query, 'per_page', 1, size.max, size.default);
  const asked = single(query, 'page') !== undefined;
  const page = wholeNumber(query, 'page', 0, Number.MAX_SAFE_INTEGER, 0);
  const start = page * perPage;
  return {
    ...(items.length > 0 ? { total: items.length } : {}),
    ...(asked ? { page } : {}),
    per_page: perPage,
    [itemsKey]: items.slice(start, start + perPage),
  };
}

/**
 * The `fields` and `include_fields` parameters of a read (applications,
 * APIs): each item with only the fields `fields` (comma-separated) names,
 * or with include_fields=false all but them; every field without `fields`.
 */
export function projection(
  query: URLSearchParams,
): <T extends Record<string, unknown>>(item: T) => Record<string, unknown> {
  const fields = single(query, 'fields');
  const include = single(query, 'include_fields');
  if (include !== undefined && include !== 'true' && include !== 'false') {
    throw invalid(`include_fields must be true or false (got "${include}")`);
  }
  if (fields === undefined || fields === '') return (item) => item;
  const names = new Set(fields.split(','));
  const keep = include !== 'false';
  return (item) => Object.fromEntries(Object.entries(item).filter(([k]) => names.has(k) === keep));
}

/** One offset page: the bare array, or with include_totals=true the object with the totals. */
export function offsetPage<T>(
  itemsKey: string,
  items: readonly T[],
  query: URLSearchParams,
  size: PageSize,
): unknown {
  const perPage = wholeNumber(query, 'per_page', 1, size.max, size.default);
  const page = wholeNumber(query, 'page', 0, Number.MAX_SAFE_INTEGER, 0);
  const totals = flag(query, 'include_totals');
  const start = page * perPage;
  const slice = items.slice(start, start + perPage);
  return totals ? { start, limit: perPage, total: items.length, [itemsKey]: slice } : slice;
}
