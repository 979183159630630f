/**
 * Comparing and ordering JSON-like attribute values independently of key
 * order. Keys whose value is undefined count as absent, so a value survives a
 * JSON round trip (state file, plan file) unchanged in meaning.
 */

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function definedKeyCount(value: JsonObject): number {
  let n = 0;
  for (const key in value) if (Object.hasOwn(value, key) && value[key] !== undefined) n++;
  return n;
}

/** Deep equality of JSON-like values; object key order does not matter, array order does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as JsonObject;
  const y = b as JsonObject;
  let count = 0;
  for (const key in x) {
    if (!Object.hasOwn(x, key) || x[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(y, key) || !deepEqual(x[key], y[key])) return false;
  }
  return count === definedKeyCount(y);
}

/**
 * Dotted paths of the fields that differ, e.g. ["configuration.limit"]. Descends
 * into objects present on both sides; an array or a scalar that differs is one path.
 */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (deepEqual(before, after)) return [];
  if (!isObject(before) || !isObject(after)) return [prefix === '' ? '(the whole value)' : prefix];
  const keys = new Set<string>();
  for (const key of Object.keys(before)) if (before[key] !== undefined) keys.add(key);
  for (const key of Object.keys(after)) if (after[key] !== undefined) keys.add(key);
  const out: string[] = [];
  for (const key of [...keys].sort(compareStrings)) {
    out.push(...changedPaths(before[key], after[key], prefix === '' ? key : `${prefix}.${key}`));
  }
  return out;
}

/** Plain code-unit comparison: the same on every machine and locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The keys of `value` in canonical order: those of `first` that it has (in
 * that order), then every other key sorted. Keys whose value is undefined are left out.
 */
export function canonicalKeys(value: JsonObject, first: readonly string[] = []): string[] {
  const keys: string[] = [];
  for (const key of first) if (Object.hasOwn(value, key) && value[key] !== undefined) keys.push(key);
  const head = keys.length;
  for (const key of Object.keys(value)) {
    if (value[key] !== undefined && (head === 0 || !first.includes(key))) keys.push(key);
  }
  if (keys.length - head > 1) {
    const rest = keys.splice(head).sort(compareStrings);
    for (const key of rest) keys.push(key);
  }
  return keys;
}

/**
 * A copy with object keys in a stable order: `first` (when present, in that
 * order) at the top level, then every other key sorted. Nested objects are sorted.
 * Undefined values are dropped.
 */
export function canonicalize(value: unknown, first: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalize(item));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of canonicalKeys(value, first)) out[key] = canonicalize(value[key]);
  return out;
}
