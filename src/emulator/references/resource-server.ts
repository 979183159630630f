/**
 * The tenant's APIs (resource servers, API profile full): GET
 * /resource-servers, offset pages, filtered by `identifiers` (repeated, at
 * most 10, as the SDK documents). A permission assigned to a user must exist:
 * an assign naming an API the tenant does not have is a 404, and one naming a
 * permission its API does not define is a 400. A fresh tenant has the APIs
 * and permissions the examples and the demo name (defaults).
 */
import { IDENTIFIERS_PER_REQUEST, resourceServer } from '../../resources/index.js';
import { badRequest, notFound } from '../errors.js';
import { emulatorKind, listPage } from '../kinds/kind.js';
import { invalid, offsetPage } from '../pages.js';
import { itemsProblem, ReferenceData } from './reference-data.js';

/** An API as GET /resource-servers lists it (the fields the emulator reads; a seed may add others). */
export interface ResourceServer {
  id?: string;
  identifier: string;
  name?: string;
  scopes?: { value: string; description?: string }[];
  [field: string]: unknown;
}

function api(id: string, identifier: string, name: string, scopes: string[]): ResourceServer {
  return { id, identifier, name, scopes: scopes.map((value) => ({ value })) };
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
      const items = data.list((r) => wanted === null || wanted.has(r.identifier));
      return { status: 200, body: offsetPage(key, items, query, size) };
    },
  },
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
  check: (part) =>
    itemsProblem(part, 'resourceServers', 'API (resource server)', 'resourceServer', (r) => r.identifier),
});
