/**
 * The names kept beside the state (see src/resources/known-names.ts): read
 * for a plan made without reading the tenant, and, after every read of the
 * tenant's reference lists, updated with what it gave. Display only: a names
 * file that cannot be read or written costs the names, said as a notice,
 * never the run.
 */
import type { Plan } from '../plan/index.js';
import type { KnownNames, ReferenceRead } from '../resources/index.js';
import type { NameKeeper } from '../state/index.js';
import type { RunIO } from './requests.js';

/** The names kept with the state of `store`; null when there are none or they cannot be read (said). */
export async function storedNames(store: NameKeeper, io: Pick<RunIO, 'notice'>): Promise<KnownNames | null> {
  try {
    return await store.readNames();
  } catch (err) {
    io.notice({ kind: 'names-unread', error: err });
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
  io: Pick<RunIO, 'notice'>,
  now: Date = new Date(),
): Promise<KnownNames> {
  const { knownNamesOf, mergeKnownNames, noKnownNames } = await import('../resources/index.js');
  const read = knownNamesOf(references, now.toISOString());
  const kept = mergeKnownNames(await storedNames(store, io), read);
  if (noKnownNames(read)) return kept;
  try {
    await store.writeNames(kept);
  } catch (err) {
    io.notice({ kind: 'names-unkept', error: err });
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
