/**
 * The emulated tenant's data: one slice per kind module (kinds/), each with
 * the service's rules over it, and what they share: the clock, which users
 * exist, and the change notice that persists the tenant. Bodies reaching a
 * slice are already schema-valid.
 */
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
    for (const m of this.kinds) this.data(m).load(parts[m.key] ?? m.empty());
  }

  reset(): void {
    this.clear();
    this.onChange();
  }

  private clear(): void {
    this.slices = new Map(this.kinds.map((m) => [m, m.open(this.tenant)]));
  }
}
