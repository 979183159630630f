/**
 * The emulator and the kinds' operation descriptors must describe the same
 * API, per API profile: under each profile the emulator serves exactly the
 * descriptors operationsFor(kind, profile) returns, each at its method and
 * path, answering one of its success statuses and demanding its scope; every
 * route of the emulator is some descriptor, and a descriptor of a larger
 * profile is not served. Changing either side alone fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, resolveTarget } from '../src/api/index.js';
import {
  EMULATOR_KINDS,
  EMULATOR_REFERENCES,
  routesFor,
  servedOperations,
  startEmulator,
  type EmulatorHandle,
} from '../src/emulator/index.js';
import {
  API_PROFILES,
  descriptorsOf,
  KINDS,
  operationsFor,
  pathParams,
  profileIncludes,
  rateLimitPolicy,
  REFERENCE_LISTS,
  updateBody,
  logEvent,
  tokenExchangeProfile,
  userPermission,
  type ApiProfile,
  type OperationDescriptor,
} from '../src/resources/index.js';
import { POLICY_BODY, PROFILE_BODY } from './api-helpers.js';
import { kindExample } from './helpers/kind-examples.js';
import { referenceSeed } from './helpers/reference-seed.js';

const SERVED = {
  createPolicy: operationsFor(rateLimitPolicy, 'spec').create,
  assignPermissions: operationsFor(userPermission, 'spec').create,
  createProfile: operationsFor(tokenExchangeProfile, 'spec').create,
};

/** Every descriptor of every kind, reference list and the logs that `profile` offers. */
function descriptors(profile: ApiProfile): OperationDescriptor[] {
  const lists = [...REFERENCE_LISTS, logEvent].flatMap((list) => descriptorsOf(list.operations));
  return [
    ...KINDS.flatMap((kind) => descriptorsOf(operationsFor(kind, profile))),
    ...lists.filter((op) => profileIncludes(profile, op.profile)),
  ];
}

/** The reference data the samples name (API profile full checks bodies against it). */
const SAMPLE_REFERENCES = referenceSeed({
  actions: [PROFILE_BODY.action_id],
  permissions: [['https://api.example', 'read:x']],
});

type Sample = (
  client: ReturnType<typeof createApiClient>,
) => Promise<{ params: Record<string, string>; body?: unknown }>;

/**
 * A request each descriptor can succeed with on an empty tenant (`setup` may
 * create what it needs); a kind's descriptor without one here (the rate limit
 * policies', a new kind's) gets exampleSample's.
 */
const SAMPLES: Record<string, Sample> = {
  assignUserPermissions: async () => ({
    params: { user_id: 'auth0|descriptor-test' },
    body: { permissions: [{ resource_server_identifier: 'https://api.example', permission_name: 'read:x' }] },
  }),
  createTokenExchangeProfile: async () => ({ params: {}, body: PROFILE_BODY }),
  removeUserPermissions: async () => ({
    params: { user_id: 'auth0|descriptor-test' },
    body: { permissions: [{ resource_server_identifier: 'https://api.example', permission_name: 'read:x' }] },
  }),
  updateTokenExchangeProfile: async (client) => {
    const made = await client.call(SERVED.createProfile, {}, PROFILE_BODY);
    return { params: { id: (made as { body: { id: string } }).body.id }, body: { name: 'renamed profile' } };
  },
  deleteTokenExchangeProfile: async (client) => {
    const made = await client.call(SERVED.createProfile, {}, PROFILE_BODY);
    return { params: { id: (made as { body: { id: string } }).body.id } };
  },
  listUserPermissions: async (client) => {
    const params = { user_id: 'auth0|descriptor-test' };
    const grants = [{ resource_server_identifier: 'https://api.example', permission_name: 'read:x' }];
    await client.call(SERVED.assignPermissions, params, { permissions: grants });
    return { params };
  },
  listTokenExchangeProfiles: async (client) => {
    await client.call(SERVED.createProfile, {}, PROFILE_BODY);
    return { params: {} };
  },
  getTokenExchangeProfile: async (client) => {
    const made = await client.call(SERVED.createProfile, {}, PROFILE_BODY);
    return { params: { id: (made as { body: { id: string } }).body.id } };
  },
  listClients: async () => ({ params: {} }),
  listActions: async () => ({ params: {} }),
  listResourceServers: async () => ({ params: {} }),
  listLogs: async () => ({ params: {} }),
  // The reference data of SAMPLE_REFERENCES (the applications a seed leaves out stay the defaults).
  getClient: async () => ({ params: { id: 'batch-partner-sync' } }),
  getAction: async () => ({ params: { id: PROFILE_BODY.action_id } }),
  getResourceServer: async () => ({ params: { id: 'https://api.example' } }),
};

/**
 * A request for a descriptor of a kind, made from the first resource of the
 * kind's example config: its create, or after that create (an `id` path
 * parameter is the id it got) the descriptor with the example's body (an
 * update's: every attribute it can change).
 */
function exampleSample(op: OperationDescriptor): Sample {
  const kind = KINDS.find((k) => descriptorsOf(operationsFor(k, 'full')).includes(op));
  if (!kind) throw new Error(`no sample for ${op.name}: write one in SAMPLES`);
  const example = kindExample(kind);
  const create = operationsFor(kind, 'spec').create;
  const params = (d: OperationDescriptor, id?: string) =>
    Object.fromEntries(pathParams(d.path).map((p) => [p, p === 'id' && id ? id : String(example[p])]));
  const body = kind.requestBody([example]);
  return async (client) => {
    if (op === create) return { params: params(op), body };
    const made = (await client.call(create, params(create), body)) as { body?: { id?: string } };
    const sent =
      op === operationsFor(kind, 'full').update ? updateBody(kind, example, kind.updatable ?? []) : body;
    return { params: params(op, made.body?.id), ...(op.request ? { body: sent } : {}) };
  };
}

const sampleOf = (op: OperationDescriptor): Sample => SAMPLES[op.name] ?? exampleSample(op);

/** The emulator's pattern for a descriptor path: "/users/{user_id}/permissions" → api/v2/users/:/permissions. */
function routePattern(path: string): string {
  return [
    'api',
    'v2',
    ...path
      .split('/')
      .slice(1)
      .map((s) => (/^\{.*\}$/.test(s) ? ':' : s)),
  ].join('/');
}

function clientWith(emulator: EmulatorHandle, token: string) {
  return createApiClient({
    target: resolveTarget({ baseUrl: emulator.baseUrl }, {}),
    credentials: { kind: 'token', token },
    retry: { maxAttempts: 1 },
  });
}

describe('emulator routes and operation descriptors', () => {
  it('serves each handled descriptor at its method and path, once', () => {
    const apiRoutes = routesFor([...EMULATOR_KINDS, ...EMULATOR_REFERENCES], 'full').filter(
      (r) => r.route !== 'token',
    );
    expect(new Set(apiRoutes.map((r) => r.operation!.op)).size).toBe(apiRoutes.length);
    for (const route of apiRoutes) {
      const op = route.operation!.op;
      expect({ method: route.method, path: route.pattern.join('/') }).toEqual({
        method: op.method,
        path: routePattern(op.path),
      });
      expect(route.label).toBe(`${op.method} /api/v2${op.path.replace(/\{[^}]+\}/g, '{id}')}`);
    }
  });

  it.each(API_PROFILES.map((p) => [p] as const))(
    'serves under %s exactly the descriptors operationsFor gives every kind, and the reference lists’',
    (profile) => {
      expect(new Set(servedOperations(profile))).toEqual(new Set(descriptors(profile)));
    },
  );

  it('names a label for each path parameter of each descriptor', () => {
    for (const op of descriptors('full'))
      expect(Object.keys(op.params).sort()).toEqual(pathParams(op.path).sort());
  });
});

describe.each(API_PROFILES.map((p) => [p] as const))('the emulator with API profile %s', (profile) => {
  let emulator: EmulatorHandle;

  beforeAll(async () => {
    emulator = await startEmulator({ api: profile });
  });
  afterAll(async () => {
    await emulator.stop();
  });

  const served = servedOperations(profile);
  const scopes = [...new Set(served.map((d) => d.scope))];
  /** An empty tenant, with the reference data the samples name under full. */
  const fresh = () => {
    emulator.reset();
    if (profile === 'full') emulator.replaceState(SAMPLE_REFERENCES);
  };

  it('says which profile it serves', () => {
    expect(emulator.api).toBe(profile);
  });

  it.each(served.map((op) => [op.name, op] as const))(
    '%s: answers one of the descriptor’s success statuses',
    async (_name, op) => {
      fresh();
      const client = clientWith(emulator, emulator.token);
      try {
        const sample = await sampleOf(op)(client);
        const result = await client.call(op, sample.params, sample.body);
        expect(result.outcome).toBe('done');
        expect(op.success).toContain(result.status);
      } finally {
        await client.close();
      }
    },
  );

  it.each(served.map((op) => [op.name, op] as const))(
    '%s: is refused with 403 naming the descriptor’s scope when the token lacks it',
    async (_name, op) => {
      fresh();
      const setup = clientWith(emulator, emulator.token);
      const sample = await sampleOf(op)(setup);
      await setup.close();
      const client = clientWith(
        emulator,
        emulator.issueToken({ scopes: scopes.filter((s) => s !== op.scope) }),
      );
      try {
        const err = await client.call(op, sample.params, sample.body).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(403);
        expect((err as ApiError).serverMessage ?? (err as ApiError).message).toContain(op.scope);
      } finally {
        await client.close();
      }
    },
  );

  const filtered = served.filter((op) => op.filters !== undefined && op.filters.length > 0);
  it.each(filtered.map((op) => [op.name, op] as const))(
    '%s: honours every filter the descriptor names, matching exactly',
    async (_name, op) => {
      emulator.reset();
      const client = clientWith(emulator, emulator.token);
      try {
        const a = POLICY_BODY as unknown as Record<string, string>;
        await client.call(SERVED.createPolicy, {}, a);
        await client.call(SERVED.createPolicy, {}, { ...a, consumer_selector: 'third_party_clients' });
        const list = async (query: string) => {
          const res = await fetch(`${emulator.baseUrl}${op.path}?${query}`, {
            headers: { authorization: `Bearer ${emulator.token}` },
          });
          expect(res.status).toBe(200);
          return ((await res.json()) as Record<string, Record<string, unknown>[]>)[op.itemsKey!]!;
        };
        expect(await list('')).toHaveLength(2);
        for (const name of op.filters!) {
          const matching = await list(`${name}=${encodeURIComponent(a[name]!)}`);
          expect(matching.length, name).toBeGreaterThan(0);
          for (const item of matching) expect(item[name], name).toBe(a[name]);
          expect(await list(`${name}=no-such-value`), name).toEqual([]);
        }
      } finally {
        await client.close();
      }
    },
  );

  const unserved = descriptors('full').filter((op) => !profileIncludes(profile, op.profile));
  it.each(unserved.map((op) => [op.name, op] as const))(
    '%s: of a larger profile, is not served (404, or 405 on a known path)',
    async (_name, op) => {
      const path = `/api/v2${op.path.replace(/\{[^}]+\}/g, 'x1')}`;
      const res = await fetch(`${emulator.origin}${path}`, {
        method: op.method,
        headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
        ...(op.method === 'GET' ? {} : { body: '{}' }),
      });
      expect([404, 405]).toContain(res.status);
      await res.arrayBuffer();
    },
  );
});
