/**
 * Config values → DesiredResource candidates, each with the position of the
 * list item that declares it. Attributes are the create request body (see
 * resources/), keys in the schema's order and only the keys the schema allows.
 */
import type { Node } from 'yaml';
import {
  formatAddress,
  identityOf,
  KINDS,
  type Attributes,
  type DesiredResource,
  type Kind,
  type SourcePosition,
} from '../resources/index.js';
import { configOrderAt, type KeyOrder } from '../schemas/index.js';
import { locate, nodeOffset, type DocumentIndex } from './yaml-nodes.js';

type Item = Record<string, unknown>;

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Gives the string to keep for a value read from a file: see keeper. */
type Keep = (value: string) => string;

/**
 * The strings the resources of one document keep, each value once: the
 * first time a value is seen it is copied (JSON.parse makes a fresh string),
 * later equal values share that copy. A parser's strings are cut from the
 * file's text, and each such cut keeps the whole text alive while the
 * resource is: for the run of a plan or apply. Repeated values (an API
 * identifier, a resource, an action) are kept once.
 */
function keeper(): Keep {
  const kept = new Map<string, string>();
  return (value) => {
    let copy = kept.get(value);
    if (copy === undefined) {
      copy = JSON.parse(JSON.stringify(value)) as string;
      kept.set(copy, copy);
    }
    return copy;
  };
}

/**
 * The keys of `item` the schema allows where `order` stands (see
 * configOrderAt), in the schema's order, set on `out`; a mapping below one of
 * them is picked the same way, and strings are the ones `keep` gives. Walks
 * the key order it is given rather than looking each level up by path: it
 * runs for every item of every config.
 */
function pick(item: Item, order: KeyOrder, keep: Keep, out: Attributes = {}): Attributes {
  for (const key of order.keys) {
    if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
    const value = item[key];
    const below = order.children.get(key);
    out[key] =
      typeof value === 'string'
        ? keep(value)
        : isItem(value) && below !== undefined && below.keys.length > 0
          ? pick(value, below, keep)
          : value;
  }
  return out;
}

function hasStrings(item: Item, keys: readonly string[]): boolean {
  return keys.every((key) => typeof item[key] === 'string');
}

function make(kind: Kind, attributes: Attributes, source: SourcePosition): DesiredResource {
  const identity = identityOf(kind, attributes);
  return { kind: kind.name, address: formatAddress(kind.name, identity), identity, attributes, source };
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

/** The resources of one kind's list, in list order: one per item, or per member of each entry of a grouped kind. */
function collectKind(kind: Kind, list: unknown[], positionOf: PositionOf, keep: Keep): DesiredResource[] {
  const { key, group } = kind.config;
  const out: DesiredResource[] = [];
  if (!group) {
    const order = configOrderAt([key]);
    list.forEach((item, i) => {
      if (isItem(item) && hasStrings(item, kind.identityFields))
        out.push(make(kind, pick(item, order, keep), positionOf([key, i], list, i)));
    });
    return out;
  }
  const order = configOrderAt([key, group.list]);
  const memberFields = kind.identityFields.filter((field) => field !== group.by);
  list.forEach((entry, i) => {
    const owner = isItem(entry) ? entry[group.by] : undefined;
    const members = isItem(entry) ? entry[group.list] : undefined;
    if (typeof owner !== 'string' || !Array.isArray(members)) return;
    const by = keep(owner);
    members.forEach((member: unknown, j: number) => {
      if (!isItem(member) || !hasStrings(member, memberFields)) return;
      const attributes = pick(member, order, keep, { [group.by]: by });
      out.push(make(kind, attributes, positionOf([key, i, group.list, j], members, j)));
    });
  });
  return out;
}

/**
 * Every item whose identity fields are strings, valid or not, kind by kind in
 * KINDS order, each in document order: counts and duplicate checks need them
 * even when other fields are wrong.
 */
export function collectFromValue(data: unknown, positionOf: PositionOf): DesiredResource[] {
  if (!isItem(data)) return [];
  const out: DesiredResource[] = [];
  const keep = keeper();
  for (const kind of KINDS) {
    const list = data[kind.config.key];
    if (Array.isArray(list)) out.push(...collectKind(kind, list, positionOf, keep));
  }
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
