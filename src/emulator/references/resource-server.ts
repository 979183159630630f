/**
 * The tenant's APIs (resource servers, API profile full): GET
 * /resource-servers, offset pages, filtered by `identifiers` (repeated, at
 * most 10, as the SDK documents), `fields` with `include_fields` choosing the
 * fields of each item (observed); GET /resource-servers/{id} reads one by
 * its id or its identifier (404 inexistent_resource_server). The tenant's
 * APIs name a user's permissions in its permission list (`annotates`). A permission assigned to a user must exist:
 * an assign naming an API the tenant does not have is a 404, and one naming a
 * permission its API does not define is a 400. A fresh tenant has the APIs
 * and permissions the examples and the demo name (defaults).
 */
import { IDENTIFIERS_PER_REQUEST, resourceServer } from '../../resources/index.js';
import { badRequest, notFound } from '../errors.js';
import { emulatorKind, listPage } from '../kinds/kind.js';
import { invalid, offsetPage, projection } from '../pages.js';
import { itemsProblem, ReferenceData } from './reference-data.js';

/** An API as GET /resource-servers lists it (the fields the emulator reads; a seed may add others). */
export interface ResourceServer {
  id?: string;
  identifier: string;
  name?: string;
  scopes?: { value: string; description?: string }[];
  [field: string]: unknown;
}

/** An API whose permissions are described as the dashboard suggests ("Read orders" for read:orders). */
function api(id: string, identifier: string, name: string, scopes: string[]): ResourceServer {
  const describe = (value: string) => {
    const [verb = value, noun = ''] = value.split(':');
    return `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun.replaceAll('-', ' ')}`.trim();
  };
  return { id, identifier, name, scopes: scopes.map((value) => ({ value, description: describe(value) })) };
}

/** The APIs and permissions of examples/ and of `tenantform init`'s example. */
const DEFAULT_RESOURCE_SERVERS: readonly ResourceServer[] = [
  api('6650a1b2c3d4e5f6a7b8c901', 'https://admin.acme.example/api', 'Acme admin API', [
    'read:tenant-settings',
    'update:tenant-settings',
    'read:audit-log',
  ]),
  api('6650a1b2c3d4e5f6a7b8c902', 'https://api.acme.example/orders', 'Orders API', [
    'read:orders',
    'write:orders',
  ]),
  api('6650a1b2c3d4e5f6a7b8c903', 'https://api.acme.example/customers', 'Customers API', [
    'read:customers',
    'write:customers',
  ]),
  api('6650a1b2c3d4e5f6a7b8c904', 'https://api.example.com/', 'Example API', [
    'read:reports',
    'write:reports',
  ]),
];

/** The identifiers a list request filters by (none: every API); more than 10 is a 400. */
function identifiersOf(query: URLSearchParams): Set<string> | null {
  const given = query.getAll('identifiers');
  if (given.length === 0) return null;
  if (given.length > IDENTIFIERS_PER_REQUEST) {
    throw invalid(`identifiers may be given at most ${IDENTIFIERS_PER_REQUEST} times (got ${given.length})`);
  }
  return new Set(given);
}

const noSuchServer = () => notFound('The resource server does not exist', 'inexistent_resource_server');

/** A user's permission item as the service lists it, before the tenant's APIs fill in their part. */
interface PermissionItem {
  permission_name: string;
  resource_server_identifier: string;
  resource_server_name?: string;
  description?: string;
  [field: string]: unknown;
}

/**
 * A user's permission items with their API's name and the permission's
 * description, as the service lists them; for an API the tenant does not
 * hold (only a seed can leave one so), the identifier as the name and no
 * description (a choice).
 */
function describePermissions(data: ReferenceData<ResourceServer>, items: unknown[]): unknown[] {
  return (items as PermissionItem[]).map((item) => {
    const server = data.find(item.resource_server_identifier);
    const scope = server?.scopes?.find((s) => s.value === item.permission_name);
    return {
      ...item,
      description: scope?.description ?? '',
      resource_server_name: server?.name ?? item.resource_server_identifier,
    };
  });
}

type Grants = { permissions: { resource_server_identifier: string; permission_name: string }[] };

export const resourceServers = emulatorKind({
  kind: resourceServer,
  key: 'resourceServers',
  shape: 'list',
  empty: (): ResourceServer[] => [],
  defaults: (): ResourceServer[] => structuredClone([...DEFAULT_RESOURCE_SERVERS]),
  open: () => new ReferenceData<ResourceServer>((r) => r.identifier),
  handlers: {
    listResourceServers: (data, { op, query }) => {
      const { key, size } = listPage(op);
      const wanted = identifiersOf(query);
      const items = data.list((r) => wanted === null || wanted.has(r.identifier)).map(projection(query));
      return { status: 200, body: offsetPage(key, items, query, size) };
    },
    getResourceServer: (data, { params, query }) => {
      const id = params.id!;
      const found = data.find(id) ?? data.list((r) => r.id === id)[0];
      if (!found) throw noSuchServer();
      return { status: 200, body: projection(query)(structuredClone(found)) };
    },
  },
  annotates: { listUserPermissions: describePermissions },
  refuses: {
    assignUserPermissions: (data, body) => {
      for (const p of (body as Grants).permissions) {
        const server = data.find(p.resource_server_identifier);
        if (!server) {
          throw notFound(
            `The resource server does not exist: ${p.resource_server_identifier}`,
            'inexistent_resource_server',
          );
        }
        if (!(server.scopes ?? []).some((s) => s.value === p.permission_name)) {
          throw badRequest(
            `The permission ${p.permission_name} is not defined by the resource server ${p.resource_server_identifier}`,
            'invalid_permission',
          );
        }
      }
    },
  },
  sources: [
    {
      operations: ['listResourceServers'],
      facts: [
        ['offset pages, at most 10 `identifiers`', 'SDK'],
        ['`fields` keeps only those fields', 'observed'],
      ],
    },
    {
      operations: ['getResourceServer'],
      facts: [
        ['by id or identifier', 'observed (real tools read it so)'],
        [
          '404 "The resource server does not exist"',
          'observed (message); `inexistent_resource_server` is a choice',
        ],
      ],
    },
  ],
  check: (part) =>
    itemsProblem(part, 'resourceServers', 'API (resource server)', 'resourceServer', (r) => r.identifier),
});
