/**
 * Checks one document's value against the config schema and points each issue
 * at the YAML node that produced it, with messages that say what is allowed.
 */
import type { Node } from 'yaml';
import { KINDS } from '../resources/index.js';
import { checkSchema, configKeysAt, configVariantsAt, type SchemaIssue } from '../schemas/index.js';
import type { ConfigIssue } from './types.js';
import type { Conversion } from './yaml-convert.js';
import {
  issueAt,
  keyOffset,
  locate,
  nodeOffset,
  pathKey,
  valueOffset,
  type DocumentIndex,
  type JsonPath,
} from './yaml-nodes.js';

/** The allowed keys (read from the schemas): at the top level, in a list item, or below one. */
const keysAt = (...path: string[]): string[] => configKeysAt(path);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(data: unknown, path: JsonPath): unknown {
  let current = data;
  for (const step of path) {
    if (Array.isArray(current) && typeof step === 'number') current = current[step];
    else if (
      isRecord(current) &&
      typeof step === 'string' &&
      Object.prototype.hasOwnProperty.call(current, step)
    )
      current = current[step];
    else return undefined;
  }
  return current;
}

/** The mapping's path without list indexes: ["rate_limit_policies", 0, "configuration"] → ["rate_limit_policies", "configuration"]. */
function keyPath(path: JsonPath): string[] {
  return path.filter((step): step is string => typeof step === 'string');
}

/**
 * For a mapping that is one of several variants (a policy's configuration,
 * chosen by action): the choosing property, its value when it names a
 * variant, and the keys that variant allows.
 */
function variantOf(data: unknown, path: JsonPath) {
  const variants = configVariantsAt(keyPath(path));
  if (!variants) return undefined;
  const value = valueAt(data, [...path, variants.property]);
  const keys = typeof value === 'string' ? variants.keys.get(value) : undefined;
  return { property: variants.property, value: keys ? (value as string) : undefined, keys };
}

/** "unknown property" with the keys allowed where it stands. `path` is the mapping's path. */
export function unknownPropertyMessage(path: JsonPath, key: string, data: unknown): string {
  const allowed = (keys: string[]) => `; allowed: ${keys.join(', ')}`;
  if (path.length === 0) return `unknown top-level key "${key}"${allowed(keysAt())}`;
  const [list, , sub] = path;
  const kind = KINDS.find((k) => k.config.key === list);
  const group = kind?.config.group;
  if (!kind || typeof list !== 'string') return `unknown property "${key}"`;
  if (path.length === 2) {
    const what = group ? `${list} entry` : kind.title.one;
    return `unknown property "${key}" in a ${what}${allowed(keysAt(list))}`;
  }
  if (group && path.length === 4 && sub === group.list)
    return `unknown property "${key}" in a ${group.member.one}${allowed(keysAt(list, sub))}`;
  const variant = !group && path.length === 3 && typeof sub === 'string' ? variantOf(data, path) : undefined;
  if (variant?.keys) {
    return `unknown property "${key}" for ${variant.property} ${variant.value}${allowed(variant.keys)}`;
  }
  if (variant) {
    return `unknown property "${key}" in ${sub}${allowed(keysAt(list, sub as string))} (which ones depends on ${variant.property})`;
  }
  return `unknown property "${key}"`;
}

function issueCode(keyword: string): string {
  return 'SCHEMA_' + keyword.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

function isUnder(path: JsonPath, reported: ReadonlySet<string>): boolean {
  for (let i = path.length; i >= 0; i--) if (reported.has(pathKey(path.slice(0, i)))) return true;
  return false;
}

/** Drops issues that only repeat another: a value already reported, extra keywords beside a type error, a missing property's own checks. */
function withoutEchoes(issues: SchemaIssue[], data: unknown, reported: ReadonlySet<string>): SchemaIssue[] {
  const typed = new Set(issues.filter((i) => i.keyword === 'type').map((i) => pathKey(i.path)));
  const required = new Set(issues.filter((i) => i.keyword === 'required').map((i) => pathKey(i.path)));
  return issues.filter((issue) => {
    if (isUnder(issue.path, reported)) return false;
    if (issue.atKey) return true;
    if (issue.keyword !== 'type' && typed.has(pathKey(issue.path))) return false;
    const missing = issue.path.length > 0 && valueAt(data, issue.path) === undefined;
    return !(missing && required.has(pathKey(issue.path.slice(0, -1))));
  });
}

function describe(issue: SchemaIssue, data: unknown): string {
  if (issue.keyword === 'additionalProperties') {
    return unknownPropertyMessage(issue.path.slice(0, -1), String(issue.path[issue.path.length - 1]), data);
  }
  if (issue.keyword === 'required') {
    // A property the chosen variant needs besides the choosing one: "… for action block".
    const variant = variantOf(data, issue.path);
    if (variant?.keys && variant.keys.length > 1)
      return `${issue.message} for ${variant.property} ${variant.value}`;
  }
  return issue.message;
}

/** Schema issues of one document, positioned. `root` null means an empty document, which is valid. */
export function schemaIssues(index: DocumentIndex, root: Node | null, conversion: Conversion): ConfigIssue[] {
  const data = conversion.value;
  if (root === null) return [];
  const fallback = nodeOffset(root, 0);
  if (!isRecord(data)) {
    if (isUnder([], conversion.reported)) return [];
    return [
      issueAt(
        index,
        fallback,
        `the file must be a mapping with any of the keys ${keysAt().join(', ')}`,
        'SCHEMA_TYPE',
      ),
    ];
  }
  const out: ConfigIssue[] = [];
  for (const refused of conversion.refusedKeys) {
    const message = unknownPropertyMessage(refused.path, refused.key, data);
    out.push(issueAt(index, nodeOffset(refused.node, fallback), message, 'SCHEMA_ADDITIONAL_PROPERTIES'));
  }
  for (const issue of withoutEchoes(checkSchema('config', data), data, conversion.reported)) {
    const located = locate(index, root, issue.path);
    const offset = issue.atKey ? keyOffset(located, fallback) : valueOffset(located, fallback);
    out.push(issueAt(index, offset, describe(issue, data), issueCode(issue.keyword)));
  }
  return out;
}
