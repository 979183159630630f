/**
 * application/x-www-form-urlencoded bodies, for the two operations whose spec
 * lists that content type (create policy, assign permissions).
 *
 * Nested fields use bracket notation with explicit indices:
 *   resource=oauth_authentication_api&consumer=client&consumer_selector=default
 *   &configuration[action]=block&configuration[limit]=10
 *   permissions[0][resource_server_identifier]=https://api&permissions[0][permission_name]=read:x
 * A mapping whose keys are exactly 0..n-1 becomes a list. Every value is a
 * string, except at the paths the schema types as integer (configuration.limit),
 * where a string of digits (optionally signed) becomes a number, so that the
 * same schema rules (and messages) apply as for JSON. Empty brackets ("a[]"),
 * a key given twice, gaps in indices and a field used both as a value and as a
 * mapping are 400s.
 */
import { badRequest } from './errors.js';

type Node = string | Map<string, Node>;

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

function keyPath(key: string): string[] {
  const match = KEY.exec(key);
  if (!match) throw badRequest(`Form field name "${key}" is malformed; use a[b][0] bracket notation`);
  const parts = [match[1]!];
  for (const bracket of match[2]!.match(/\[[^[\]]*\]/g) ?? []) {
    const inner = bracket.slice(1, -1);
    if (inner === '')
      throw badRequest(`Form field name "${key}" has empty brackets; give explicit indices: a[0]`);
    parts.push(inner);
  }
  return parts;
}

function insert(root: Map<string, Node>, path: string[], value: string, key: string): void {
  let node = root;
  for (let i = 0; i < path.length - 1; i++) {
    const part = path[i]!;
    const next = node.get(part);
    if (typeof next === 'string')
      throw badRequest(`Form field "${key}" conflicts with a value given for its parent`);
    if (next) {
      node = next;
    } else {
      const child = new Map<string, Node>();
      node.set(part, child);
      node = child;
    }
  }
  const last = path[path.length - 1]!;
  if (node.has(last)) throw badRequest(`Form field "${key}" is given twice or conflicts with another field`);
  node.set(last, value);
}

function define(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function toValue(node: Node): unknown {
  if (typeof node === 'string') return node;
  const keys = [...node.keys()];
  if (keys.length > 0 && keys.every((k) => INDEX.test(k))) {
    const indices = keys.map(Number).sort((a, b) => a - b);
    if (indices.some((n, i) => n !== i))
      throw badRequest('Form list indices must run 0, 1, 2, … without gaps');
    const list: unknown[] = [];
    for (const i of indices) list.push(toValue(node.get(String(i))!));
    return list;
  }
  const object = {};
  for (const [k, v] of node) define(object, k, toValue(v));
  return object;
}

function coerceInteger(doc: unknown, path: readonly string[]): void {
  let parent: unknown = doc;
  for (const part of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, part)) return;
    parent = (parent as Record<string, unknown>)[part];
  }
  const last = path[path.length - 1]!;
  if (typeof parent !== 'object' || parent === null || Array.isArray(parent) || !Object.hasOwn(parent, last))
    return;
  const value = (parent as Record<string, unknown>)[last];
  if (typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value)) define(parent, last, Number(value));
}

/** Parses a form body into the nested value a JSON body would carry. Throws a 400 HttpError. */
export function parseForm(text: string, integerPaths: readonly (readonly string[])[] = []): unknown {
  const root = new Map<string, Node>();
  for (const [key, value] of new URLSearchParams(text)) insert(root, keyPath(key), value, key);
  const doc = toValue(root);
  const result = Array.isArray(doc) ? Object.fromEntries(doc.map((v, i) => [String(i), v])) : doc;
  for (const path of integerPaths) coerceInteger(result, path);
  return result;
}
