/**
 * Contract tests from facts, not from our code. Each file of
 * test/fixtures/contract/ is one answer of the real service to one request
 * of a route tenantform or the emulator serves under API profile full,
 * written from what is known of the service (observed answers,
 * management-api-beyond-spec.md, the SDK's types; docs/emulator.md says which
 * for each route), never from what our code produces. Each is checked two
 * ways:
 *
 * - tenantform's reader accepts it: the client (undici MockAgent answering
 *   the fixture) takes it as success, an expected outcome or an error it can
 *   read, through the response schemas, and the kinds' and reference lists'
 *   `fromLive` turn its items into resources;
 * - the emulator answers the same request with the same status, the headers
 *   the fixture names, and a body of the same shape: the same keys and the
 *   same JSON types, recursively (values may differ: ids, times, names).
 *
 * Either side drifting from the facts fails here. The emulator's reference
 * data (applications, Actions, APIs) is what a seed gives it, so the tenant
 * is seeded with the fixtures' own items; what the emulator adds or leaves
 * out around them (tenant, fields=, envelopes) is what is compared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, resolveTarget } from '../src/api/index.js';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import {
  descriptorsOf,
  KINDS,
  operationsFor,
  pathParams,
  REFERENCE_LISTS,
  type OperationDescriptor,
} from '../src/resources/index.js';

interface Fixture {
  /**
   * What the case needs the tenant to hold first: the fixtures whose requests
   * make it, in order (":write": see givenRequest). A `{…}` placeholder in
   * the request's path is the id the last of them got.
   */
  given?: string[];
  request: { method: string; path: string; body?: unknown };
  status: number;
  /** Headers that must match; null: the header must be absent. */
  headers?: Record<string, string | null>;
  body?: unknown;
}

const DIR = join(import.meta.dirname, 'fixtures', 'contract');
const FIXTURES: Record<string, Fixture> = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture]),
);

const USER = 'auth0|65f0c2a1b3d4e5f6a7b8c9d0';

/** A request of a `given` list: a fixture's, or one derived from it (":write": the second permission). */
function givenRequest(name: string): Fixture['request'] {
  if (name === 'assign-user-permissions:write') {
    const base = FIXTURES['assign-user-permissions']!.request;
    const body = structuredClone(base.body) as { permissions: { permission_name: string }[] };
    body.permissions[0]!.permission_name = 'write:entries';
    return { ...base, body };
  }
  return FIXTURES[name]!.request;
}

/** The reference data the fixtures name, seeded from their own items (less what the service adds: tenant). */
function seed() {
  const client = { ...(FIXTURES['get-client']!.body as Record<string, unknown>) };
  delete client.tenant;
  return {
    clients: [
      client,
      {
        client_id: 'Nt6Yb3Vc9Xz2Lk5Jh8Gf1Ds4Ap7Qw0Er',
        name: 'Ledger mobile',
        app_type: 'native',
        is_first_party: true,
      },
    ],
    actions: [FIXTURES['get-action']!.body],
    resourceServers: [FIXTURES['get-resource-server']!.body],
  };
}

// ---- the shape of a JSON value: its keys and JSON types, recursively -------------------------

type Shape = string | { [key: string]: Shape } | { items: Shape };

function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    if (value.length === 0) return { items: 'nothing' };
    const shapes = value.map(shapeOf);
    const first = JSON.stringify(shapes[0]);
    // A fixture's items share one shape; an answer whose items differ among themselves is a difference too.
    const differ = shapes.find((s) => JSON.stringify(s) !== first);
    return { items: differ === undefined ? shapes[0]! : 'items of different shapes' };
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  }
  return typeof value;
}

// ---- the reader: tenantform's client against the fixture's answer ---------------------------

const DESCRIPTORS: {
  op: OperationDescriptor;
  owner: (typeof KINDS)[number] | (typeof REFERENCE_LISTS)[number];
}[] = [
  ...KINDS.flatMap((kind) => descriptorsOf(operationsFor(kind, 'full')).map((op) => ({ op, owner: kind }))),
  ...REFERENCE_LISTS.flatMap((list) => descriptorsOf(list.operations).map((op) => ({ op, owner: list }))),
];

/** The descriptor of a request, and its path parameters (decoded). */
function descriptorOf(method: string, path: string) {
  const segments = path.split('?')[0]!.split('/').slice(1);
  for (const entry of DESCRIPTORS) {
    const pattern = entry.op.path.split('/').slice(1);
    if (entry.op.method !== method || pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = pattern.every((p, i) => {
      if (/^\{.+\}$/.test(p)) {
        params[p.slice(1, -1)] = decodeURIComponent(segments[i]!);
        return true;
      }
      return p === segments[i];
    });
    if (fits) return { ...entry, params };
  }
  throw new Error(`no descriptor for ${method} ${path}`);
}

/** A path with its `{…}` placeholder replaced by `id`. */
const withId = (path: string, id: string | undefined) => (id ? path.replace(/\{[a-z]+\}/, id) : path);

/** What tenantform's client makes of the fixture's answer to its request. */
async function read(fixture: Fixture) {
  const made = FIXTURES[fixture.given?.at(-1) ?? '']?.body as { id?: string } | undefined;
  const path = withId(fixture.request.path, made?.id);
  const { op, owner, params } = descriptorOf(fixture.request.method, path);
  expect(Object.keys(params).sort()).toEqual(pathParams(op.path).sort());
  const agent = new MockAgent();
  agent.disableNetConnect();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fixture.headers ?? {}))
    if (value !== null) headers[name] = value;
  if (fixture.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
  agent
    .get('https://tenant.example.com')
    .intercept({ path: () => true, method: fixture.request.method })
    .reply(fixture.status, fixture.body === undefined ? '' : JSON.stringify(fixture.body), { headers });
  const client = createApiClient({
    target: resolveTarget({ domain: 'tenant.example.com' }, {}),
    credentials: { kind: 'token', token: 't0k3n' },
    dispatcher: agent,
    retry: { maxAttempts: 1 },
  });
  const query = Object.fromEntries(new URLSearchParams(path.split('?')[1] ?? ''));
  try {
    const result = await client.call(op, params, fixture.request.body, query).catch((err: unknown) => err);
    return { op, owner, params, result };
  } finally {
    await client.close();
    await agent.close();
  }
}

// ---- the emulator: the same request ---------------------------------------------------------

let emulator: EmulatorHandle;

async function send(request: Fixture['request'], id?: string) {
  const path = withId(request.path, id);
  const res = await fetch(`${emulator.baseUrl}${path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${emulator.token}`,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

/** The emulator's answer to a fixture's request, on a tenant holding what the case needs. */
async function answer(name: string) {
  emulator.reset();
  emulator.replaceState(seed());
  let id: string | undefined;
  for (const given of FIXTURES[name]!.given ?? []) {
    const made = await send(givenRequest(given), id);
    expect(made.status, `${given}: ${made.text}`).toBeLessThan(300);
    id = (made.body as { id?: string } | undefined)?.id ?? id;
  }
  return send(FIXTURES[name]!.request, id);
}

beforeAll(async () => {
  emulator = await startEmulator({ api: 'full', users: [USER] });
});
afterAll(async () => {
  await emulator.stop();
});

const names = Object.keys(FIXTURES);

describe('the contract fixtures', () => {
  it('cover every route the emulator serves under API profile full', () => {
    const routes = new Set(
      names.map((name) => {
        const { method, path } = FIXTURES[name]!.request;
        return descriptorOf(method, path.replace(/\{[a-z]+\}/, 'x')).op.name;
      }),
    );
    expect([...routes].sort()).toEqual(DESCRIPTORS.map((d) => d.op.name).sort());
  });
});

describe.each(names.map((name) => [name] as const))('contract %s', (name) => {
  const fixture = FIXTURES[name]!;

  it('is read by tenantform', async () => {
    const { op, owner, params, result } = await read(fixture);
    if (fixture.status >= 400) {
      // An expected outcome (409 on create, 404 on a get or delete), or an error whose body it reads.
      const body = fixture.body as { message: string };
      if (result instanceof ApiError) {
        expect(result.status).toBe(fixture.status);
        expect(result.serverMessage).toBe(body.message);
      } else {
        expect(result).toMatchObject({ outcome: op.outcomes[fixture.status], status: fixture.status });
        expect((result as { error: { message?: string } }).error.message).toContain(body.message);
      }
      return;
    }
    expect(result, String(result)).toMatchObject({ outcome: 'done', status: fixture.status });
    const body = (result as { body?: unknown }).body;
    if (!op.response) return;
    const items = op.itemsKey
      ? Array.isArray(body)
        ? body
        : (body as Record<string, unknown[]>)[op.itemsKey]!
      : [body];
    expect(Array.isArray(items)).toBe(true);
    for (const item of items) {
      const live = 'identityFields' in owner ? owner.fromLive(item, params) : owner.fromLive(item);
      expect(JSON.stringify(live)).not.toMatch(/"(tenant|sources|description|resource_server_name)"/);
    }
  });

  it('is answered alike by the emulator: status, headers, keys and JSON types', async () => {
    const got = await answer(name);
    expect(got.status, got.text).toBe(fixture.status);
    for (const [header, value] of Object.entries(fixture.headers ?? {}))
      expect(got.headers.get(header)).toBe(value);
    if (fixture.body === undefined) expect(got.text).toBe('');
    else expect(shapeOf(got.body)).toEqual(shapeOf(fixture.body));
  });
});
