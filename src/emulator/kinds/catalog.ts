import type { Ordered } from '../pages.js';

/**
 * Items with a server id and a unique identity (a policy's resource +
 * consumer + consumer_selector, a profile's subject_token_type), in creation
 * order for the lists' cursors. Holds the items themselves: callers copy what
 * they hand out.
 */
export class Catalog<T extends { id: string }> {
  private byId = new Map<string, T>();
  /** Identity key → id. */
  private ids = new Map<string, string>();
  /** Creation order by id. */
  private order = new Map<string, number>();
  private nextSeq = 0;

  constructor(private readonly keyOf: (item: T) => string) {}

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /** The item with this identity key, if any. */
  withKey(key: string): T | undefined {
    const id = this.ids.get(key);
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Adds an item last in creation order. */
  add(item: T): void {
    this.byId.set(item.id, item);
    this.ids.set(this.keyOf(item), item.id);
    this.order.set(item.id, this.nextSeq++);
  }

  remove(id: string): void {
    const item = this.byId.get(id);
    if (!item) return;
    this.byId.delete(id);
    this.ids.delete(this.keyOf(item));
    this.order.delete(id);
  }

  /** Runs `change` on an item whose identity may change, keeping the key index right. */
  rekey(item: T, change: () => void): void {
    this.ids.delete(this.keyOf(item));
    change();
    this.ids.set(this.keyOf(item), item.id);
  }

  values(): T[] {
    return [...this.byId.values()];
  }

  /** Copies of the items `keep` accepts, in creation order, each with its place. */
  ordered(copy: (item: T) => T, keep: (item: T) => boolean = () => true): Ordered<T>[] {
    return [...this.byId.values()]
      .filter(keep)
      .map((item) => ({ seq: this.order.get(item.id) ?? -1, item: copy(item) }))
      .sort((a, b) => a.seq - b.seq);
  }
}
