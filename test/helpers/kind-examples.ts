/**
 * A resource of each kind for tests that run over every kind: the first
 * resource of the example config the kind declares (what `tenantform init`
 * writes), so a new kind brings its own sample.
 */
import { parse } from 'yaml';
import { exampleAttributes } from '../../scripts/docs-reference.mjs';
import { EMULATOR_KINDS, type EmulatorSnapshot } from '../../src/emulator/index.js';
import {
  descriptorsOf,
  KINDS,
  operationsFor,
  readPer,
  type ApiProfile,
  type Attributes,
  type ConfigCounts,
  type KindModule,
} from '../../src/resources/index.js';

/** The attributes of the first resource of `kind`'s example config. */
export function kindExample(kind: KindModule): Attributes {
  return exampleAttributes(kind, parse);
}

/** Config counts (validate --format json) with every kind's count, and every grouped kind's owners', 0, then `given`. */
export function countsWith(given: Readonly<Record<string, number>>): ConfigCounts {
  const zero = KINDS.flatMap((k) => [k.config.key, ...(k.config.group ? [k.config.group.owner.many] : [])]);
  return { files: 0, ...Object.fromEntries(zero.map((key) => [key, 0])), ...given } as ConfigCounts;
}

/** The config's top-level keys as messages list them: "rate_limit_policies, user_permissions, …". */
export function configKeys(): string {
  return KINDS.map((k) => k.config.key).join(', ');
}

/** What a fresh emulated tenant holds: every kind module's part, empty. */
export function emptyTenant(): EmulatorSnapshot {
  return Object.fromEntries(EMULATOR_KINDS.map((m) => [m.key, m.empty()])) as unknown as EmulatorSnapshot;
}

/** Every scope the kinds' operations under `profile` need, each once, sorted. */
export function kindScopes(profile: ApiProfile): string[] {
  const ops = KINDS.flatMap((k) => descriptorsOf(operationsFor(k, profile)));
  return [...new Set(ops.map((op) => op.scope))].sort();
}

/** How many resources the kinds' example configs declare together (what `tenantform init` adds). */
export function exampleResourceCount(): number {
  return KINDS.reduce((sum, kind) => {
    const entries = (parse(kind.config.example) as Record<string, Record<string, unknown[]>[]>)[
      kind.config.key
    ]!;
    const group = kind.config.group;
    return sum + (group ? entries.reduce((n, entry) => n + entry[group.list]!.length, 0) : entries.length);
  }, 0);
}

/** A pattern for what a summary says after the kinds a test names: ", 0 roles" for each kind after them. */
export const LATER_KINDS_ZERO = '(, 0 [^,.]+)*';

/**
 * How many kinds other than `named` are read whole under API profile full
 * (a list, not per user): each adds a list, and one request, to a read of the
 * tenant whose figures a test gives for the kinds it names.
 */
export function otherListedKinds(...named: string[]): number {
  return KINDS.filter(
    (k) => !named.includes(k.name) && operationsFor(k, 'full').list && readPer(k).length === 0,
  ).length;
}
