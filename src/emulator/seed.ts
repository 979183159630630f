/**
 * Seeding the tenant from outside the API, as if someone else had made the
 * changes (for drift, adoption and export tests): PUT /__emulator/state (and
 * the handle's `replaceState`) replace everything the tenant holds with a
 * document shaped like GET /__emulator/state. Policies and profiles may leave
 * out `id` (generated, with the service's shape), `created_at` and
 * `updated_at` (now); everything else is checked as a `--data` file is. Ids
 * and timestamps given are kept, so a test can change a resource's settings
 * while it keeps its id (drift), or place one with a chosen identity (a 409
 * for tenantform's create).
 */
import { badRequest } from './errors.js';
import { snapshotProblem } from './persistence.js';
import { randomAlphanumeric } from './store.js';
import type { EmulatorSnapshot } from './types.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `items` with id and timestamps filled in where missing. */
function completed(items: unknown, prefix: string, idLength: number, now: string): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item: unknown) =>
    isRecord(item)
      ? {
          id: item.id ?? `${prefix}${randomAlphanumeric(idLength)}`,
          ...item,
          created_at: item.created_at ?? now,
          updated_at: item.updated_at ?? now,
        }
      : item,
  );
}

/** The tenant a seed document describes; throws a 400 naming what is wrong with it. */
export function seededSnapshot(doc: unknown, nowMs: number): EmulatorSnapshot {
  if (!isRecord(doc)) throw badRequest('The state must be a JSON object', 'invalid_body');
  const now = new Date(nowMs).toISOString();
  const full = {
    version: 1,
    rateLimitPolicies: completed(doc.rateLimitPolicies ?? [], 'rlp_', 21, now),
    userPermissions: doc.userPermissions ?? {},
    tokenExchangeProfiles: completed(doc.tokenExchangeProfiles ?? [], 'tep_', 16, now),
  };
  const unknown = Object.keys(doc).filter(
    (k) => !['version', 'rateLimitPolicies', 'userPermissions', 'tokenExchangeProfiles'].includes(k),
  );
  if (unknown.length > 0)
    throw badRequest(`Unknown field(s) in the state: ${unknown.join(', ')}`, 'invalid_body');
  const why = snapshotProblem(full);
  if (why) throw badRequest(`The state is unusable: ${why}`, 'invalid_body');
  return full as unknown as EmulatorSnapshot;
}
