/**
 * The emulator and the kinds' operation descriptors must describe the same
 * API: every descriptor is served at its method and path, answers one of its
 * success statuses, demands its scope; every route of the emulator is some
 * descriptor. Changing either side alone fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, resolveTarget } from '../src/api/index.js';
import { SERVED_OPERATIONS, startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { ROUTES } from '../src/emulator/router.js';
import { KINDS, pathParams, type OperationDescriptor } from '../src/resources/index.js';
import { POLICY_BODY, PROFILE_BODY } from './api-helpers.js';

const DESCRIPTORS: OperationDescriptor[] = KINDS.flatMap((kind) =>
  Object.values(kind.operations).filter((op): op is OperationDescriptor => op !== undefined),
);

/** A request each descriptor can succeed with on an empty tenant (`setup` may create what it needs). */
const SAMPLES: Record<
  string,
  (client: ReturnType<typeof createApiClient>) => Promise<{ params: Record<string, string>; body?: unknown }>
> = {
  createRateLimitPolicy: async () => ({ params: {}, body: POLICY_BODY }),
  deleteRateLimitPolicy: async (client) => {
    const body = { ...POLICY_BODY, consumer_selector: 'third_party_clients' };
    const made = await client.call(SERVED_OPERATIONS.createPolicy, {}, body);
    return { params: { id: (made as { body: { id: string } }).body.id } };
  },
  assignUserPermissions: async () => ({
    params: { user_id: 'auth0|descriptor-test' },
    body: { permissions: [{ resource_server_identifier: 'https://api.example', permission_name: 'read:x' }] },
  }),
  createTokenExchangeProfile: async () => ({ params: {}, body: PROFILE_BODY }),
};

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

let emulator: EmulatorHandle;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.stop();
});

function clientWith(token: string) {
  return createApiClient({
    target: resolveTarget({ baseUrl: emulator.baseUrl }, {}),
    credentials: { kind: 'token', token },
    retry: { maxAttempts: 1 },
  });
}

describe('emulator routes and operation descriptors', () => {
  it('pair every emulator route (but the token endpoint) with one descriptor, same method and path', () => {
    const apiRoutes = ROUTES.filter((r) => r.route !== 'token');
    const served = Object.values(SERVED_OPERATIONS);
    expect(new Set(served).size).toBe(apiRoutes.length);
    for (const route of apiRoutes) {
      const op = SERVED_OPERATIONS[route.route as keyof typeof SERVED_OPERATIONS];
      expect(op, route.label).toBeDefined();
      expect({ method: route.method, path: route.pattern.join('/') }).toEqual({
        method: op.method,
        path: routePattern(op.path),
      });
      expect(route.label).toBe(`${op.method} /api/v2${op.path.replace(/\{[^}]+\}/g, '{id}')}`);
    }
  });

  it('serves every descriptor of every kind', () => {
    expect(new Set(Object.values(SERVED_OPERATIONS))).toEqual(new Set(DESCRIPTORS));
  });

  it('names a label for each path parameter of each descriptor', () => {
    for (const op of DESCRIPTORS) expect(Object.keys(op.params).sort()).toEqual(pathParams(op.path).sort());
  });

  it.each(DESCRIPTORS.map((op) => [op.name, op] as const))(
    '%s: answers one of the descriptor’s success statuses',
    async (name, op) => {
      emulator.reset();
      const client = clientWith(emulator.token);
      try {
        const sample = await SAMPLES[name]!(client);
        const result = await client.call(op, sample.params, sample.body);
        expect(result.outcome).toBe('done');
        expect(op.success).toContain(result.status);
      } finally {
        await client.close();
      }
    },
  );

  it.each(DESCRIPTORS.map((op) => [op.name, op] as const))(
    '%s: is refused with 403 naming the descriptor’s scope when the token lacks it',
    async (name, op) => {
      emulator.reset();
      const setup = clientWith(emulator.token);
      const sample = await SAMPLES[name]!(setup);
      await setup.close();
      const others = [...new Set(DESCRIPTORS.map((d) => d.scope))].filter((s) => s !== op.scope);
      const client = clientWith(emulator.issueToken({ scopes: others }));
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
});
