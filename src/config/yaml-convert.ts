/**
 * YAML nodes → plain JSON-like values, with the checks the generic YAML → JS
 * conversion does not make: duplicate keys, keys that could reach an object's
 * prototype, alias cycles and expansion, unsupported scalar types, and ${NAME}
 * interpolation with the reference's position.
 */
import type { Alias, Node, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { YAML } from './yaml-lib.js';
import { plainText, type Wording } from '../resources/index.js';
import type { ConfigIssue, ConfigLimits, VariableLookup } from './types.js';
import { coreScalar, interpolate } from './variables.js';
import { issueAt, keyString, nodeOffset, pathKey, type DocumentIndex, type JsonPath } from './yaml-nodes.js';

/** Keys refused everywhere: as object keys in JavaScript they can touch prototypes. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper nesting than any config needs; stops stack exhaustion on hostile input. */
const MAX_DEPTH = 64;

export interface RefusedKey {
  /** Path of the mapping that holds the key. */
  path: JsonPath;
  key: string;
  node: Node;
}

export interface Conversion {
  value: unknown;
  issues: ConfigIssue[];
  /** Paths (see pathKey) whose value is already reported; schema issues there would only repeat it. */
  reported: Set<string>;
  /** Keys dropped by FORBIDDEN_KEYS, reported later as unknown properties. */
  refusedKeys: RefusedKey[];
}

export function convertDocument(
  index: DocumentIndex,
  root: Node | null,
  lookup: VariableLookup,
  limits: ConfigLimits,
): Conversion {
  const converter = new Converter(index, lookup, limits);
  const value = root ? converter.convert(root, 0) : null;
  return {
    value,
    issues: converter.issues,
    reported: converter.reported,
    refusedKeys: converter.refusedKeys,
  };
}

class Converter {
  readonly issues: ConfigIssue[] = [];
  readonly reported = new Set<string>();
  readonly refusedKeys: RefusedKey[] = [];
  private readonly path: JsonPath = [];
  /** Collections being converted, outermost first: an alias to one of them would never end. */
  private readonly open = new Set<Node>();
  private outerAlias: Alias | null = null;
  private expanded = 0;
  private expansionExceeded = false;

  constructor(
    private readonly index: DocumentIndex,
    private readonly lookup: VariableLookup,
    private readonly limits: ConfigLimits,
  ) {}

  convert(node: Node, depth: number): unknown {
    if (this.outerAlias && !this.countExpansion()) return null;
    if (depth > MAX_DEPTH) {
      this.report(node, `nested more than ${MAX_DEPTH} levels deep`, 'YAML_TOO_DEEP');
      return null;
    }
    if (YAML.isAlias(node)) return this.convertAlias(node, depth);
    if (YAML.isMap(node) || YAML.isSeq(node)) {
      this.open.add(node);
      const value = YAML.isMap(node) ? this.convertMap(node, depth) : this.convertSeq(node, depth);
      this.open.delete(node);
      return value;
    }
    if (YAML.isScalar(node)) return this.convertScalar(node);
    return null;
  }

  private convertMap(node: YAMLMap, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const seen = new Map<string, Node>();
    for (const pair of node.items) {
      const keyNode = pair.key as Node;
      const key = keyString(this.index, keyNode);
      if (key === undefined) {
        this.report(keyNode ?? node, 'mapping keys must be plain strings', 'YAML_KEY_NOT_STRING', false);
        continue;
      }
      const first = seen.get(key);
      if (first) {
        const at = this.index.lineCounter.linePos(nodeOffset(first, 0));
        this.report(
          keyNode,
          `duplicate key "${key}": already given at ${at.line}:${at.col}`,
          'YAML_DUPLICATE_KEY',
          false,
        );
        continue;
      }
      seen.set(key, keyNode);
      if (FORBIDDEN_KEYS.has(key)) {
        this.refusedKeys.push({ path: [...this.path], key, node: keyNode });
        continue;
      }
      this.path.push(key);
      out[key] = pair.value ? this.convert(pair.value as Node, depth + 1) : null;
      this.path.pop();
    }
    return out;
  }

  private convertSeq(node: YAMLSeq, depth: number): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < node.items.length; i++) {
      this.path.push(i);
      out.push(this.convert(node.items[i] as Node, depth + 1));
      this.path.pop();
    }
    return out;
  }

  private countExpansion(): boolean {
    if (this.expansionExceeded) return false;
    this.expanded += 1;
    if (this.expanded <= this.limits.maxAliasExpansion) return true;
    this.expansionExceeded = true;
    this.report(
      this.outerAlias!,
      `aliases expand to more than ${this.limits.maxAliasExpansion} values; write the values out instead`,
      'YAML_ALIAS_LIMIT',
    );
    return false;
  }

  private convertAlias(alias: Alias, depth: number): unknown {
    const target = this.index.aliasTargets.get(alias);
    if (!target) {
      this.report(alias, `alias *${alias.source} has no anchor &${alias.source} before it`, 'YAML_ALIAS');
      return null;
    }
    if (this.open.has(target)) {
      this.report(alias, `alias *${alias.source} refers to a node that contains it`, 'YAML_ALIAS');
      return null;
    }
    const outer = this.outerAlias;
    this.outerAlias = outer ?? alias;
    const value = this.convert(target, depth);
    this.outerAlias = outer;
    return value;
  }

  private convertScalar(node: Scalar): unknown {
    const value = node.value;
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (typeof value !== 'string') {
      const tag = node.tag ? ` (tag ${node.tag.replace('tag:yaml.org,2002:', '!!')})` : '';
      this.report(
        node,
        `unsupported value${tag}: use a string, a number, true/false or nothing`,
        'YAML_UNSUPPORTED_VALUE',
      );
      return null;
    }
    if (!value.includes('$')) return value;
    const result = interpolate(value, this.lookup);
    for (const problem of result.problems) {
      this.reportAt(
        this.referenceOffset(node, value, problem.offset),
        problem.wording ?? problem.message,
        problem.code,
      );
    }
    if (result.problems.length > 0) return value;
    if (result.wholeReference && node.type === 'PLAIN' && !node.tag) return coreScalar(result.value);
    return result.value;
  }

  /** Exact offset of a reference when the scalar's source is its value (plain, or quoted with no escapes); else the scalar's start. */
  private referenceOffset(node: Scalar, value: string, offsetInValue: number): number {
    const range = node.range;
    if (!range) return 0;
    const raw = this.index.text.slice(range[0], range[1]);
    if (node.type === 'PLAIN' && raw === value) return range[0] + offsetInValue;
    const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE';
    if (quoted && raw.length === value.length + 2 && raw.slice(1, -1) === value)
      return range[0] + 1 + offsetInValue;
    return range[0];
  }

  /** Reports at a node; `aboutValue` marks the current value as reported so the schema does not repeat it. */
  private report(node: Node, message: string, code: string, aboutValue = true): void {
    this.reportAt(nodeOffset(node, 0), message, code, aboutValue);
  }

  private reportAt(offset: number, message: string | Wording, code: string, aboutValue = true): void {
    this.issues.push(
      typeof message === 'string'
        ? issueAt(this.index, offset, message, code)
        : { ...issueAt(this.index, offset, plainText(message), code), wording: message },
    );
    if (aboutValue) this.reported.add(pathKey(this.path));
  }
}
