/**
 * Config values → DesiredResource candidates, each with the position of the
 * list item that declares it. Attributes are the create request body (see
 * resources/), keys in the schema's order and only the keys the schema allows.
 */
import type { Node } from 'yaml';
import {
  formatAddress,
  identityOf,
  rateLimitPolicy,
  tokenExchangeProfile,
  userPermission,
  type Attributes,
  type DesiredResource,
  type KindModule,
  type SourcePosition,
} from '../resources/index.js';
import { configKeysAt } from '../schemas/index.js';
import { locate, nodeOffset, type DocumentIndex } from './yaml-nodes.js';

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pick(item: Item, keys: readonly string[]): Attributes {
  const out: Attributes = {};
  for (const key of keys) if (Object.prototype.hasOwnProperty.call(item, key)) out[key] = item[key];
  return out;
}

function hasStrings(item: Item, keys: readonly string[]): boolean {
  return keys.every((key) => typeof item[key] === 'string');
}

function make(kind: KindModule, attributes: Attributes, source: SourcePosition): DesiredResource {
  const identity = identityOf(kind, attributes);
  return { kind: kind.name, address: formatAddress(kind.name, identity), identity, attributes, source };
}

/** The keys the schema allows below a config key (list indexes left out), in the schema's order. */
const keysAt = (...path: string[]): string[] => configKeysAt(path);

function policyAttributes(item: Item): Attributes {
  const key = rateLimitPolicy.configKey;
  const attributes = pick(item, keysAt(key));
  if (isItem(attributes.configuration)) {
    attributes.configuration = pick(attributes.configuration, keysAt(key, 'configuration'));
  }
  return attributes;
}

/**
 * Where the list item at a path (e.g. ["rate_limit_policies", 3]) is declared;
 * `list` and `index` are the same item as the array that holds it and its place.
 */
export type PositionOf = (
  path: readonly (string | number)[],
  list: unknown[],
  index: number,
) => SourcePosition;

/**
 * Every item whose identity fields are strings, valid or not, in document
 * order: counts and duplicate checks need them even when other fields are wrong.
 */
export function collectFromValue(data: unknown, positionOf: PositionOf): DesiredResource[] {
  if (!isItem(data)) return [];
  const out: DesiredResource[] = [];
  const items = (key: string): unknown[] => (Array.isArray(data[key]) ? (data[key] as unknown[]) : []);

  items(rateLimitPolicy.configKey).forEach((item, i, list) => {
    if (isItem(item) && hasStrings(item, rateLimitPolicy.identityFields)) {
      out.push(
        make(rateLimitPolicy, policyAttributes(item), positionOf([rateLimitPolicy.configKey, i], list, i)),
      );
    }
  });

  items(userPermission.configKey).forEach((entry, i) => {
    if (!isItem(entry) || typeof entry.user_id !== 'string' || !Array.isArray(entry.permissions)) return;
    const fields = keysAt(userPermission.configKey, 'permissions');
    entry.permissions.forEach((permission: unknown, j: number, list: unknown[]) => {
      if (!isItem(permission) || !hasStrings(permission, fields)) return;
      const attributes = { user_id: entry.user_id, ...pick(permission, fields) };
      const at = positionOf([userPermission.configKey, i, 'permissions', j], list, j);
      out.push(make(userPermission, attributes, at));
    });
  });

  items(tokenExchangeProfile.configKey).forEach((item, i, list) => {
    if (isItem(item) && hasStrings(item, tokenExchangeProfile.identityFields)) {
      out.push(
        make(
          tokenExchangeProfile,
          pick(item, keysAt(tokenExchangeProfile.configKey)),
          positionOf([tokenExchangeProfile.configKey, i], list, i),
        ),
      );
    }
  });
  return out;
}

/** collectFromValue with positions taken from the YAML document's nodes. */
export function collectResources(index: DocumentIndex, root: Node | null, data: unknown): DesiredResource[] {
  if (root === null) return [];
  const fallback = nodeOffset(root, 0);
  return collectFromValue(data, (path) => {
    const { line, col } = index.lineCounter.linePos(
      nodeOffset(locate(index, root, [...path]).node, fallback),
    );
    return { file: index.file, line, col };
  });
}
