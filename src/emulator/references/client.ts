/**
 * The tenant's applications (API profile full): GET /clients, offset pages,
 * `fields` with `include_fields` (true unless false) choosing the fields of
 * each item, which always carries `tenant` too (observed); the `app_type`
 * and `is_first_party` filters apply (observed); other filters (q, …) are
 * not emulated and are ignored. GET /clients/{id} reads one (404
 * inexistent_client). A fresh tenant has the applications the examples and
 * the demo name (defaults).
 */
import { client } from '../../resources/index.js';
import { notFound } from '../errors.js';
import { emulatorKind, listPage } from '../kinds/kind.js';
import { flag, offsetPage, projection, single } from '../pages.js';
import { itemsProblem, ReferenceData } from './reference-data.js';

/** An application as GET /clients lists it (the fields the emulator keeps; a seed may add others). */
export interface Application {
  client_id: string;
  name?: string;
  app_type?: string;
  is_first_party?: boolean;
  [field: string]: unknown;
}

const app = (client_id: string, name: string, app_type: string, is_first_party = true): Application => ({
  client_id,
  name,
  app_type,
  is_first_party,
});

/** The applications of examples/ (dev and prod), and one third-party application. */
const DEFAULT_CLIENTS: readonly Application[] = [
  app('Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC', 'Customer web app', 'regular_web'),
  app('Vb4nM7qW0eR3tY6uI9oP2aS5dF8gH1jK', 'Mobile app', 'native'),
  app('batch-partner-sync', 'Partner data sync', 'non_interactive'),
  app('Hs9Jd2Kf5Lg8Zq1Xw4Ce7Vr0Bt3Ny6Mu', 'Customer portal', 'spa'),
  app('Dq8mW2xK7pLs4Nv9Rt3Yb6Hc1Jf5Ge0a', 'Customer web app (dev)', 'regular_web'),
  app('Mk3Vn8Qa1Zr6Tw4Xy9Lp2Bs7Hd5Fc0De', 'Mobile app (test flight)', 'native'),
  app('ci-e2e-runner', 'CI end-to-end runner', 'non_interactive'),
  app('Pf6Gh1Jk9Lm3Nq7Rs2Tu5Vw8Xy0Za4Bc', 'Customer portal (dev)', 'spa'),
  app('tpa_Rk2Lm5Np8Qs1Tv4Wx7Yz0Ab3Cd6Ef9', 'Partner analytics', 'regular_web', false),
];

/** The tenant's name, which the service adds to every application it lists (a choice: the emulator's tenant has this one). */
export const TENANT_NAME = 'emulator';

/** The applications a list request asks for: its app_type (comma-separated) and is_first_party filters. */
function filterOf(query: URLSearchParams): (a: Application) => boolean {
  const types = single(query, 'app_type')?.split(',');
  const firstParty = single(query, 'is_first_party');
  const party = firstParty === undefined ? undefined : flag(query, 'is_first_party');
  return (a) =>
    (types === undefined || types.includes(String(a.app_type))) &&
    (party === undefined || (a.is_first_party ?? true) === party);
}

/** An application as the service answers it: the fields asked for, and always the tenant (observed). */
function served(query: URLSearchParams): (a: Application) => Record<string, unknown> {
  const project = projection(query);
  return (a) => ({ ...project(a), tenant: a.tenant ?? TENANT_NAME });
}

const noSuchClient = () => notFound('The client does not exist', 'inexistent_client');

export const clients = emulatorKind({
  kind: client,
  key: 'clients',
  shape: 'list',
  empty: (): Application[] => [],
  defaults: (): Application[] => structuredClone([...DEFAULT_CLIENTS]),
  open: () => new ReferenceData<Application>((a) => a.client_id),
  handlers: {
    listClients: (data, { op, query }) => {
      const { key, size } = listPage(op);
      const items = data.list(filterOf(query)).map(served(query));
      return { status: 200, body: offsetPage(key, items, query, size) };
    },
    getClient: (data, { params, query }) => {
      const found = data.find(params.id!);
      if (!found) throw noSuchClient();
      return { status: 200, body: served(query)(structuredClone(found)) };
    },
  },
  sources: [
    {
      operations: ['listClients'],
      facts: [
        ['offset pages, `fields`/`include_fields`', 'SDK'],
        [
          'every item carries `tenant`; `app_type` and `is_first_party` filter',
          "observed; the tenant's name `emulator` is a choice",
        ],
      ],
    },
    {
      operations: ['getClient'],
      facts: [
        [
          '200, the application; 404 `inexistent_client`, "The client does not exist"',
          "docs (the code), observed (the message, in the Terraform provider's recorded tests)",
        ],
      ],
    },
  ],
  check: (part) => itemsProblem(part, 'clients', 'application', 'client', (a) => a.client_id),
});
