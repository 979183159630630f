/**
 * The canonical layout of a config file (`tenantform fmt`), through the yaml
 * package's document API so that comments stay where they were:
 *
 * - keys in the order the schemas declare them (unknown keys keep their order, after the known ones);
 * - block mappings and block sequences everywhere (flow only for an empty `{}` or `[]`);
 * - strings unquoted unless quoting is needed, except those with `${`: quoting decides
 *   a reference's type there (see variables), so their quoting is kept;
 * - two-space indentation, sequences indented under their key, no line folding;
 * - blank lines kept where they were, a run of them collapsed into one.
 *
 * Pure text in, text out; the result always parses to the same data (checked).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Document, LineCounter, Pair, Scalar, YAMLMap, YAMLError } from 'yaml';
import { YAML } from './yaml-lib.js';
import { configKeyOrder, type KeyOrder } from '../schemas/key-order.js';
import type { ConfigIssue } from './types.js';

export interface FormatResult {
  /** The formatted text; the input itself when there are issues. */
  text: string;
  /** Syntax problems that stop formatting, at their position. */
  issues: ConfigIssue[];
}

const TO_STRING = { lineWidth: 0, indent: 2, indentSeq: true, flowCollectionPadding: true, nullStr: '' };

function formatScalar(scalar: Scalar): void {
  if (typeof scalar.value !== 'string') return;
  if (scalar.type === YAML.Scalar.BLOCK_LITERAL || scalar.type === YAML.Scalar.BLOCK_FOLDED) return;
  // Quoting decides whether "${LIMIT}" is a string or takes the variable's type: keep it.
  if (scalar.value.includes('${')) return;
  scalar.type = undefined; // plain where the value reads back the same, quoted otherwise
}

function keyRank(order: KeyOrder | null, pair: Pair): number {
  if (!order || !YAML.isScalar(pair.key)) return Number.MAX_SAFE_INTEGER;
  const index = order.keys.indexOf(String(pair.key.value));
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

/**
 * `key: { a: 1 } # why` becomes a block: its comment goes above the first
 * item (where the parser puts a comment after `key:` too, so a second run agrees).
 */
function keepTrailingComment(pair: Pair): void {
  const value = pair.value;
  if (!(YAML.isMap(value) || YAML.isSeq(value)) || !value.flow || value.items.length === 0 || !value.comment)
    return;
  value.commentBefore = value.commentBefore ? `${value.commentBefore}\n${value.comment}` : value.comment;
  value.comment = '';
}

/** Sorts a mapping's keys; a comment that starts the document stays at the top. */
function sortKeys(node: YAMLMap, order: KeyOrder | null, isRoot: boolean): void {
  const first = node.items[0];
  // Array.prototype.sort is stable: unknown keys keep their relative order.
  node.items.sort((a, b) => keyRank(order, a) - keyRank(order, b));
  const head = node.items[0];
  if (!isRoot || !first || head === first || !YAML.isScalar(first.key) || !YAML.isScalar(head?.key)) return;
  const header = first.key.commentBefore;
  if (!header) return;
  first.key.commentBefore = undefined;
  head.key.commentBefore = head.key.commentBefore ? `${header}\n${head.key.commentBefore}` : header;
}

function formatNode(node: unknown, order: KeyOrder | null, isRoot = false): void {
  if (YAML.isScalar(node)) {
    formatScalar(node);
  } else if (YAML.isMap(node)) {
    sortKeys(node, order, isRoot);
    node.flow = node.items.length === 0;
    for (const pair of node.items) {
      keepTrailingComment(pair);
      formatNode(pair.key, null);
      const child = YAML.isScalar(pair.key) ? (order?.children.get(String(pair.key.value)) ?? null) : null;
      formatNode(pair.value, child);
    }
  } else if (YAML.isSeq(node)) {
    node.flow = node.items.length === 0;
    for (const item of node.items) formatNode(item, order);
  }
}

/** The key order for a document: the config's when every top-level key is a config key, else none. */
function documentOrder(doc: Document): KeyOrder | null {
  if (!YAML.isMap(doc.contents)) return null;
  const order = configKeyOrder();
  const isConfig = doc.contents.items.every(
    (pair) => YAML.isScalar(pair.key) && order.keys.includes(String(pair.key.value)),
  );
  return isConfig ? order : null;
}

function hasAlias(doc: Document): boolean {
  let found = false;
  YAML.visit(doc, {
    Alias() {
      found = true;
      return YAML.visit.BREAK;
    },
  });
  return found;
}

function formatDocument(doc: Document): string {
  // Reordering keys could move an alias above its anchor: a document with aliases keeps its key order.
  formatNode(doc.contents, hasAlias(doc) ? null : documentOrder(doc), true);
  return doc.toString(TO_STRING);
}

/**
 * Config data (what `export` writes) as text in the canonical layout, as
 * formatConfigText would leave it, without a text to parse: linear in the
 * data and far cheaper than formatting text. No alias is ever made.
 */
export function formatConfigData(value: unknown): string {
  return formatDocument(new YAML.Document(value, { aliasDuplicateObjects: false }));
}

function issueAt(file: string, lineCounter: LineCounter, error: YAMLError): ConfigIssue {
  const { line, col } = lineCounter.linePos(error.pos[0]);
  const message = error.message.split('\n')[0] ?? error.message;
  return { file, line, col, message, code: 'YAML_SYNTAX' };
}

function parse(text: string, lineCounter?: LineCounter) {
  return YAML.parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false, strict: true });
}

/**
 * The data each document holds, for the check that formatting changed layout
 * only. A string with `${` carries whether it was plain: that decides its type.
 * Aliases are not expanded: an anchor and each alias stand for themselves
 * (formatting keeps both, and the key order of a document that has them), so
 * the check is linear in the text even when aliases nest (expanded, a few
 * hundred bytes of nested aliases are billions of nodes).
 */
function dataOf(text: string): unknown[] {
  return parse(text).map((doc) => nodeData(doc.contents));
}

/** A node as comparable data: mappings by key (order ignored), anchors and aliases by name. */
function nodeData(node: unknown): unknown {
  if (YAML.isAlias(node)) return { alias: node.source };
  let value: unknown = null;
  if (YAML.isScalar(node)) value = scalarData(node);
  else if (YAML.isMap(node)) {
    const entries: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const pair of node.items) entries[JSON.stringify(nodeData(pair.key))] = nodeData(pair.value);
    value = { map: entries };
  } else if (YAML.isSeq(node)) value = node.items.map(nodeData);
  const anchor = YAML.isNode(node) ? node.anchor : undefined;
  return anchor ? { anchor, value } : value;
}

function scalarData(node: Scalar): unknown {
  if (typeof node.value === 'string' && node.value.includes('${'))
    return `${node.type === YAML.Scalar.PLAIN ? 'plain' : 'quoted'} ${node.value}`;
  return node.value;
}

/**
 * Whether a YAML file's text is tenantform config, by its top-level keys: a
 * document that is a mapping with a config key (rate_limit_policies, …), or
 * nothing at all. Another tool's YAML beside the config (docker-compose.yml,
 * a Kubernetes manifest) is not, and `fmt` leaves it alone. Text the parser
 * refuses counts when a line starts with a config key.
 */
export function isConfigText(text: string): boolean {
  const keys = configKeyOrder().keys;
  const docs = parse(text);
  if (docs.some((doc) => doc.errors.length > 0)) {
    return keys.some((key) => new RegExp(`^["']?${key.replace(/[$]/g, '\\$&')}["']?\\s*:`, 'm').test(text));
  }
  const contents = docs.map((doc) => doc.contents).filter((node) => node !== null);
  if (contents.length === 0) return true;
  return contents.some(
    (node) =>
      YAML.isMap(node) &&
      node.items.some((pair) => YAML.isScalar(pair.key) && keys.includes(String(pair.key.value))),
  );
}

/**
 * Formats one config file's text (see the module comment). `file` only names the
 * file in issues. A file with syntax errors comes back unchanged with the errors.
 */
export function formatConfigText(text: string, file: string): FormatResult {
  const lineCounter = new YAML.LineCounter();
  const parsed = parse(text, lineCounter);
  const docs = parsed;
  const issues: ConfigIssue[] = [];
  for (const doc of docs) for (const error of doc.errors) issues.push(issueAt(file, lineCounter, error));
  if (issues.length > 0) return { text, issues };
  if (docs.length === 0) return { text, issues };

  let out: string;
  let same: boolean;
  try {
    out = docs.map(formatDocument).join('');
    same = isDeepStrictEqual(dataOf(out), dataOf(text));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      text,
      issues: [{ file, line: 0, col: 0, message: `cannot format: ${reason}`, code: 'FMT_FAILED' }],
    };
  }
  if (!same) {
    // A safety net: formatting must never change what a file says.
    return {
      text,
      issues: [
        {
          file,
          line: 0,
          col: 0,
          message:
            'formatting would change what this file says, so it was left as it is (please report this)',
          code: 'FMT_UNSAFE',
        },
      ],
    };
  }
  return { text: out, issues };
}
