/**
 * Seeds of the reference data an emulator with API profile full checks
 * bodies and reads against (its applications, Actions and APIs): what a test
 * that names its own client ids, action ids or permissions must give the
 * emulator, since the full profile refuses a profile whose Action it lacks
 * and a permission its API does not define, as the service does.
 */

export interface ReferenceNeeds {
  /** Client ids of applications (first-party, regular_web unless the id starts tpa_). */
  clients?: readonly string[];
  /** Ids of Actions deployed and bound to custom-token-exchange. */
  actions?: readonly string[];
  /** [API identifier, permission name] pairs: the APIs, each defining its permissions. */
  permissions?: readonly (readonly [string, string])[];
}

export interface ReferenceSeed {
  clients?: { client_id: string; name: string; app_type: string; is_first_party: boolean }[];
  actions?: {
    id: string;
    name: string;
    supported_triggers: { id: string; version: string }[];
    all_changes_deployed: boolean;
    deployed_version: { deployed: boolean };
  }[];
  resourceServers?: { identifier: string; name: string; scopes: { value: string }[] }[];
}

/** A seed (PUT /__emulator/state, or startEmulator's `seed`) with exactly the reference data `needs` names, for the parts it names. */
export function referenceSeed(needs: ReferenceNeeds): ReferenceSeed {
  const seed: ReferenceSeed = {};
  if (needs.clients) {
    seed.clients = needs.clients.map((client_id) => ({
      client_id,
      name: `Application ${client_id}`,
      app_type: 'regular_web',
      is_first_party: !client_id.startsWith('tpa_'),
    }));
  }
  if (needs.actions) {
    seed.actions = needs.actions.map((id) => ({
      id,
      name: `Action ${id}`,
      supported_triggers: [{ id: 'custom-token-exchange', version: 'v1' }],
      all_changes_deployed: true,
      deployed_version: { deployed: true },
    }));
  }
  if (needs.permissions) {
    const byServer = new Map<string, string[]>();
    for (const [identifier, permission] of needs.permissions) {
      const list = byServer.get(identifier) ?? [];
      if (!list.includes(permission)) list.push(permission);
      byServer.set(identifier, list);
    }
    seed.resourceServers = [...byServer].map(([identifier, scopes]) => ({
      identifier,
      name: `API ${identifier}`,
      scopes: scopes.map((value) => ({ value })),
    }));
  }
  return seed;
}
