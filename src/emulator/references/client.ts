/**
 * The tenant's applications (API profile full): GET /clients, offset pages,
 * `fields` with `include_fields` (true unless false) choosing the fields of
 * each item. Other filters of the service's list (is_first_party, app_type,
 * q, …) are not emulated and are ignored. A fresh tenant has the applications
 * the examples and the demo name (defaults).
 */
import { client } from '../../resources/index.js';
import { badRequest } from '../errors.js';
import { emulatorKind, listPage } from '../kinds/kind.js';
import { offsetPage, single } from '../pages.js';
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

/** Each item with only the fields `fields` names (include_fields true or absent) or all but them (false). */
function projection(query: URLSearchParams): (item: Application) => Record<string, unknown> {
  const fields = single(query, 'fields');
  const include = single(query, 'include_fields');
  if (include !== undefined && include !== 'true' && include !== 'false') {
    throw badRequest(
      `Query validation error: include_fields must be true or false (got "${include}")`,
      'invalid_query_string',
    );
  }
  if (fields === undefined || fields === '') return (item) => item;
  const names = new Set(fields.split(','));
  const keep = include !== 'false';
  return (item) => Object.fromEntries(Object.entries(item).filter(([k]) => names.has(k) === keep));
}

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
      return { status: 200, body: offsetPage(key, data.list().map(projection(query)), query, size) };
    },
  },
  check: (part) => itemsProblem(part, 'clients', 'application', 'client', (a) => a.client_id),
});
