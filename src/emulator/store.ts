/**
 * The emulated tenant's data: one slice per kind module (kinds/) and, under
 * API profile full, per reference list module (references/), each with the
 * service's rules over it, and what they share: the clock, which users
 * exist, the checks of a body against reference data, and the change notice
 * that persists the tenant. Bodies reaching a slice are already schema-valid.
 */
import { initialPart } from './kinds/kind.js';
import type { EmulatorKind, KindData, TenantContext } from './kinds/index.js';
import type { EmulatorSnapshot } from './types.js';

export class TenantStore {
  private slices = new Map<EmulatorKind, KindData<unknown>>();
  private readonly tenant: TenantContext;
  /** Called after every change (to persist it). */
  onChange: () => void = () => {};

  constructor(
    private readonly kinds: readonly EmulatorKind[],
    users: ReadonlySet<string> | null,
    now: () => number,
  ) {
    this.tenant = {
      now,
      timestamp: () => new Date(now()).toISOString(),
      laterThan: (previous) => {
        const before = Date.parse(previous);
        const at = now();
        return new Date(Number.isNaN(before) || at > before ? at : before + 1).toISOString();
      },
      userExists: (userId) => users === null || users.has(userId),
      changed: () => this.onChange(),
    };
    this.clear();
  }

  /** The data of one kind module. */
  data(module: EmulatorKind): KindData<unknown> {
    const data = this.slices.get(module);
    if (!data) throw new Error(`internal: the tenant holds no ${module.key}`);
    return data;
  }

  snapshot(): EmulatorSnapshot {
    return Object.fromEntries(this.kinds.map((m) => [m.key, this.data(m).snapshot()])) as EmulatorSnapshot;
  }

  /** Replaces everything with `snapshot` (already checked); does not call onChange. */
  load(snapshot: EmulatorSnapshot): void {
    this.clear();
    const parts = snapshot as unknown as Record<string, unknown>;
    for (const m of this.kinds) this.data(m).load(parts[m.key] ?? initialPart(m));
  }

  /** Runs every held module's check of `operation`'s body (OperationInput.checkReferences). */
  checkReferences(operation: string, body: unknown): void {
    for (const m of this.kinds) m.refuses?.[operation]?.(this.data(m), body);
  }

  /** Runs every held module's annotation of `operation`'s answer items (OperationInput.annotate). */
  annotate<T>(operation: string, items: T[]): T[] {
    let out: unknown[] = items;
    for (const m of this.kinds) {
      const annotate = m.annotates?.[operation];
      if (annotate) out = annotate(this.data(m), out);
    }
    return out as T[];
  }

  reset(): void {
    this.clear();
    this.onChange();
  }

  /** A fresh tenant: every module's data empty, or its defaults. */
  private clear(): void {
    this.slices = new Map(
      this.kinds.map((m) => {
        const data = m.open(this.tenant);
        if (m.defaults) data.load(m.defaults());
        return [m, data];
      }),
    );
  }
}
