/**
 * Config values → DesiredResource candidates, each with the position of the
 * list item that declares it. Attributes are the create request body (see
 * resources/), keys in the schema's order.
 */
import { isSeq, type Node } from 'yaml';
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
import { locate, nodeOffset, resolveAlias, type DocumentIndex } from './yaml-nodes.js';

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

function policyAttributes(item: Item): Attributes {
  const attributes = pick(item, ['resource', 'consumer', 'consumer_selector', 'configuration']);
  if (isItem(attributes.configuration)) {
    attributes.configuration = pick(attributes.configuration, ['action', 'limit', 'redirect_uri']);
  }
  return attributes;
}

/** The items of a list node (through an alias), to take each item's position. */
function listNodes(index: DocumentIndex, node: Node | null): readonly unknown[] {
  const list = resolveAlias(index, node);
  return isSeq(list) ? list.items : [];
}

/**
 * Every item whose identity fields are strings, valid or not, in document
 * order: counts and duplicate checks need them even when other fields are wrong.
 */
export function collectResources(index: DocumentIndex, root: Node | null, data: unknown): DesiredResource[] {
  if (!isItem(data) || root === null) return [];
  const out: DesiredResource[] = [];
  const fallback = nodeOffset(root, 0);
  const at = (node: unknown): SourcePosition => {
    const { line, col } = index.lineCounter.linePos(nodeOffset(node as Node | null, fallback));
    return { file: index.file, line, col };
  };
  const listOf = (key: string) => ({
    items: Array.isArray(data[key]) ? (data[key] as unknown[]) : [],
    nodes: listNodes(index, locate(index, root, [key]).node),
  });

  const policies = listOf(rateLimitPolicy.configKey);
  policies.items.forEach((item, i) => {
    if (isItem(item) && hasStrings(item, rateLimitPolicy.identityFields)) {
      out.push(make(rateLimitPolicy, policyAttributes(item), at(policies.nodes[i])));
    }
  });

  const entries = listOf(userPermission.configKey);
  entries.items.forEach((entry, i) => {
    if (!isItem(entry) || typeof entry.user_id !== 'string' || !Array.isArray(entry.permissions)) return;
    const permissionNodes = listNodes(index, locate(index, entries.nodes[i] as Node, ['permissions']).node);
    entry.permissions.forEach((permission: unknown, j: number) => {
      if (!isItem(permission) || !hasStrings(permission, ['resource_server_identifier', 'permission_name']))
        return;
      const attributes = {
        user_id: entry.user_id,
        ...pick(permission, ['resource_server_identifier', 'permission_name']),
      };
      out.push(make(userPermission, attributes, at(permissionNodes[j])));
    });
  });

  const profiles = listOf(tokenExchangeProfile.configKey);
  profiles.items.forEach((item, i) => {
    if (isItem(item) && hasStrings(item, tokenExchangeProfile.identityFields)) {
      out.push(
        make(
          tokenExchangeProfile,
          pick(item, ['name', 'subject_token_type', 'action_id', 'type']),
          at(profiles.nodes[i]),
        ),
      );
    }
  });
  return out;
}
