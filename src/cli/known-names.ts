import type { KnownNames, ReferenceRead } from '../resources/index.js';
import type { NameKeeper } from '../state/index.js';
import * as run from '../run/known-names.js';
import { runIO } from './context.js';
import type { CommandIO } from './io.js';

/**
 * The names kept beside the state for the commands (see
 * src/run/known-names.ts), their notes said on stderr.
 */

/** The names kept with the state of `store`; null when there are none or they cannot be read (said). */
export async function storedNames(store: NameKeeper, io: CommandIO): Promise<KnownNames | null> {
  return run.storedNames(store, runIO(io));
}

/** The names `references` gave, put over those kept with the state and kept again (see src/run). */
export async function keepNames(
  store: NameKeeper,
  references: ReferenceRead,
  io: CommandIO,
  now: Date = new Date(),
): Promise<KnownNames> {
  return run.keepNames(store, references, runIO(io), now);
}

export { withNames } from '../run/known-names.js';
