/**
 * Finding YAML nodes and their positions: anchors resolved once per document,
 * JSON paths walked back to the node that produced the value.
 */
import type { Alias, Document, LineCounter, Node } from 'yaml';
import { YAML } from './yaml-lib.js';
import type { ConfigIssue } from './types.js';

export type JsonPath = (string | number)[];

/** Where a path led: the value's node (null for an absent value) and the key node of its pair, if any. */
export interface Located {
  node: Node | null;
  key: Node | null;
  /** True when every step of the path was found. */
  complete: boolean;
}

/** Per-document facts the converter and the locator share. */
export interface DocumentIndex {
  doc: Document;
  text: string;
  lineCounter: LineCounter;
  file: string;
  /** Each alias's target: the last node before it with the same anchor (undefined when there is none). */
  aliasTargets: Map<Alias, Node | undefined>;
  /** Alias nodes in document order. */
  aliases: Alias[];
}

/** Resolves every alias in one pass, as YAML defines it: the nearest preceding anchor of that name. */
export function indexDocument(
  doc: Document,
  text: string,
  lineCounter: LineCounter,
  file: string,
): DocumentIndex {
  const anchors = new Map<string, Node>();
  const aliasTargets = new Map<Alias, Node | undefined>();
  const aliases: Alias[] = [];
  YAML.visit(doc, {
    Node(_key, node) {
      if (YAML.isAlias(node)) {
        aliases.push(node);
        aliasTargets.set(node, anchors.get(node.source));
      } else if (node.anchor) {
        anchors.set(node.anchor, node);
      }
    },
  });
  return { doc, text, lineCounter, file, aliasTargets, aliases };
}

/** The node an alias stands for, or the node itself when it is not an alias. */
export function resolveAlias(index: DocumentIndex, node: Node | null): Node | null {
  if (node && YAML.isAlias(node)) return index.aliasTargets.get(node) ?? null;
  return node;
}

/** The string a mapping key stands for, or undefined for keys that are not scalars. */
export function keyString(index: DocumentIndex, key: unknown): string | undefined {
  const node = YAML.isAlias(key) ? resolveAlias(index, key) : key;
  if (!YAML.isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return undefined;
}

/** Walks `path` from `root`, through aliases, to the node that produced the value. */
export function locate(index: DocumentIndex, root: Node | null, path: JsonPath): Located {
  let node: Node | null = root;
  let key: Node | null = null;
  for (const step of path) {
    const current = resolveAlias(index, node);
    if (YAML.isMap(current) && typeof step === 'string') {
      const pair = current.items.find((p) => keyString(index, p.key) === step);
      if (!pair) return { node, key, complete: false };
      key = pair.key as Node;
      node = (pair.value as Node | null) ?? null;
    } else if (YAML.isSeq(current) && typeof step === 'number' && step < current.items.length) {
      key = null;
      node = current.items[step] as Node;
    } else {
      return { node, key, complete: false };
    }
  }
  return { node, key, complete: true };
}

/** True for a value written as nothing at all (`key:`), which has no place of its own to point at. */
function isEmptyScalar(node: Node): boolean {
  return (
    YAML.isScalar(node) && node.range !== undefined && node.range !== null && node.range[0] === node.range[1]
  );
}

/** Offset to report for a located value: the value, or its key when the value is absent or empty. */
export function valueOffset(located: Located, fallback: number): number {
  const { node, key } = located;
  if (node && !isEmptyScalar(node) && node.range) return node.range[0];
  if (key?.range) return key.range[0];
  return node?.range?.[0] ?? fallback;
}

/** Offset to report for a located key (unknown property): the key, else the value. */
export function keyOffset(located: Located, fallback: number): number {
  return located.key?.range?.[0] ?? located.node?.range?.[0] ?? fallback;
}

export function issueAt(index: DocumentIndex, offset: number, message: string, code: string): ConfigIssue {
  const { line, col } = index.lineCounter.linePos(offset);
  return { file: index.file, line, col, message, code };
}

export function nodeOffset(node: Node | null | undefined, fallback: number): number {
  return node?.range?.[0] ?? fallback;
}

export function pathKey(path: JsonPath): string {
  return JSON.stringify(path);
}
