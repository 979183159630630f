/**
 * Seeding the tenant from outside the API, as if someone else had made the
 * changes (for drift, adoption and export tests): PUT /__emulator/state (and
 * the handle's `replaceState`, and `--seed FILE` at start) replace everything
 * the tenant holds with a document shaped like GET /__emulator/state, one
 * part per module (a part left out is empty, or for reference data under API
 * profile full the defaults). Policies and profiles may leave out `id`
 * (generated, with the service's shape), `created_at` and `updated_at`
 * (now): each module completes its part; everything else is checked as a
 * `--data` file is. Ids
 * and timestamps given are kept, so a test can change a resource's settings
 * while it keeps its id (drift), or place one with a chosen identity (a 409
 * for tenantform's create).
 */
import { badRequest } from './errors.js';
import { initialPart, isRecord, type EmulatorKind } from './kinds/kind.js';
import { snapshotOf, snapshotProblem } from './persistence.js';
import { EMULATOR_REFERENCES } from './references/index.js';
import type { EmulatorSnapshot } from './types.js';

/** The tenant a seed document describes; throws a 400 naming what is wrong with it. */
export function seededSnapshot(
  doc: unknown,
  nowMs: number,
  kinds: readonly EmulatorKind[],
): EmulatorSnapshot {
  if (!isRecord(doc)) throw badRequest('The state must be a JSON object', 'invalid_body');
  const now = new Date(nowMs).toISOString();
  const full: Record<string, unknown> = { version: 1 };
  for (const m of kinds) {
    const part = doc[m.key];
    full[m.key] = part === undefined ? initialPart(m) : m.complete ? m.complete(part, now) : part;
  }
  const unknown = Object.keys(doc).filter((k) => !Object.hasOwn(full, k));
  if (unknown.length > 0) {
    const reference = unknown.filter((k) => EMULATOR_REFERENCES.some((m) => m.key === k));
    const hint =
      reference.length > 0
        ? ` (${reference.join(', ')}: reference data, held under API profile full only)`
        : '';
    throw badRequest(`Unknown field(s) in the state: ${unknown.join(', ')}${hint}`, 'invalid_body');
  }
  const why = snapshotProblem(full, kinds);
  if (why) throw badRequest(`The state is unusable: ${why}`, 'invalid_body');
  return snapshotOf(full, kinds);
}
