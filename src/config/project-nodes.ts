/**
 * What the checks of tenantform.yaml (project-entry.ts, project-guardrails.ts)
 * share: where a problem is reported, and reading a mapping's entries and a
 * string value node by node.
 */
import type { Node, YAMLMap } from 'yaml';
import { YAML } from './yaml-lib.js';

export interface EntryContext {
  /** The project directory as given. */
  dir: string;
  at(node: Node | null | undefined, message: string, code?: string): void;
}

/** The mapping's entries as [key text, key node, value node]. */
export function entries(map: YAMLMap): [string, Node, Node | null][] {
  return map.items.map((pair) => {
    const key = pair.key as Node;
    const text = YAML.isScalar(key) ? String(key.value) : String(key);
    return [text, key, (pair.value as Node | null) ?? null];
  });
}

export function stringValue(node: Node | null): string | null {
  return YAML.isScalar(node) && typeof node.value === 'string' && node.value !== '' ? node.value : null;
}
