/**
 * What the reference list modules share: their data (items in the order
 * given, found by key), and the check of their part of a seed or data file.
 */
import { matchesSchema, type SchemaName } from '../../schemas/index.js';
import type { KindData } from '../kinds/kind.js';

/** One reference list's items in one tenant, in the order given (the order they are listed in). */
export class ReferenceData<T> implements KindData<T[]> {
  private items: T[] = [];
  private byKey = new Map<string, T>();

  constructor(private readonly keyOf: (item: T) => string) {}

  /** Copies of the items `keep` accepts, in order. */
  list(keep: (item: T) => boolean = () => true): T[] {
    return this.items.filter(keep).map((item) => structuredClone(item));
  }

  find(key: string): T | undefined {
    return this.byKey.get(key);
  }

  snapshot(): T[] {
    return this.list();
  }

  load(part: T[]): void {
    this.items = part.map((item) => structuredClone(item));
    this.byKey = new Map(this.items.map((item) => [this.keyOf(item), item]));
  }
}

/**
 * Why `part` (a seed's or data file's) is not a list of `noun`s each matching
 * `schema`, with distinct keys; undefined when it is.
 */
export function itemsProblem(
  part: unknown,
  key: string,
  noun: string,
  schema: SchemaName,
  keyOf: (item: Record<string, unknown>) => unknown,
): string | undefined {
  if (!Array.isArray(part)) return `${key} must be a list`;
  const seen = new Set<unknown>();
  for (const item of part) {
    if (!matchesSchema(schema, item)) return `${key}: an ${noun} is malformed`;
    const k = keyOf(item as Record<string, unknown>);
    if (seen.has(k)) return `${key}: ${JSON.stringify(k)} is listed twice`;
    seen.add(k);
  }
  return undefined;
}
