import type { Plan } from '../plan/index.js';
import type { KnownNames, ReferenceRead } from '../resources/index.js';
import type { NameKeeper } from '../state/index.js';
import type { CommandIO } from './io.js';
import { messageOf } from './run-words.js';

/**
 * The names kept beside the state (see src/resources/known-names.ts): read
 * for a plan made without reading the tenant, and, after every read of the
 * tenant's reference lists, updated with what it gave. Display only: a names
 * file that cannot be read or written costs the names, said on stderr, never
 * the command.
 */

function why(err: unknown): string {
  return messageOf(err);
}

/** The names kept with the state of `store`; null when there are none or they cannot be read (said). */
export async function storedNames(store: NameKeeper, io: CommandIO): Promise<KnownNames | null> {
  try {
    return await store.readNames();
  } catch (err) {
    io.stderr.write(
      `Note: the names kept with the state were not read (${why(err)}); ids are shown alone.\n`,
    );
    return null;
  }
}

/**
 * The names `references` gave (read now), put over those kept with the state
 * and kept again; returns them all. A failure to keep them is said and
 * otherwise ignored: this run still shows them.
 */
export async function keepNames(
  store: NameKeeper,
  references: ReferenceRead,
  io: CommandIO,
  now: Date = new Date(),
): Promise<KnownNames> {
  const { knownNamesOf, mergeKnownNames, noKnownNames } = await import('../resources/index.js');
  const read = knownNamesOf(references, now.toISOString());
  const kept = mergeKnownNames(await storedNames(store, io), read);
  if (noKnownNames(read)) return kept;
  try {
    await store.writeNames(kept);
  } catch (err) {
    io.stderr.write(`Note: the names read from the tenant were not kept with the state (${why(err)}).\n`);
  }
  return kept;
}

/** `plan` with the names `known` gives of what its changes refer to (a plan that has names keeps them). */
export async function withNames(plan: Plan, known: KnownNames | null): Promise<Plan> {
  if (plan.names || !known) return plan;
  const { namesOf } = await import('../plan/index.js');
  const names = namesOf(plan.changes, known);
  return names ? { ...plan, names } : plan;
}
