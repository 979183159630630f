import type { SchemaName } from '../schemas/index.js';

/**
 * API operations as data. Each kind module lists every operation the real
 * Management API has for it; `operationsFor(kind, profile)` is the part of
 * that table a tenant with the given API profile offers. The client sends any
 * of them through one call path (api/ `call`), the executor picks them from
 * the table (apply/), the planner asks which exist (plan/), and the emulator
 * serves the same descriptors per profile (a test holds its routes to them).
 * Nothing outside this module reads a kind's raw table.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Which operations a tenant offers: 'spec', the four operations of the Tenant
 * Management API spec (the default); 'full', also the update, delete, list
 * and get operations of the real service (management-api-beyond-spec.md).
 * Each profile includes the ones before it in API_PROFILES.
 */
export type ApiProfile = 'spec' | 'full';

/** Every profile, smallest first. */
export const API_PROFILES: readonly ApiProfile[] = ['spec', 'full'];

export function isApiProfile(value: unknown): value is ApiProfile {
  return (API_PROFILES as readonly unknown[]).includes(value);
}

/** True when a tenant with profile `profile` offers an operation first offered by `needed`. */
export function profileIncludes(profile: ApiProfile, needed: ApiProfile): boolean {
  return API_PROFILES.indexOf(needed) <= API_PROFILES.indexOf(profile);
}

/**
 * How a list operation pages: 'checkpoint' (`take` and `from`, the answer's
 * `next` names the following page; none or empty on the last) or 'offset'
 * (`per_page` and 0-based `page`; `include_totals=true` wraps the array in an
 * object with start, limit and total).
 */
export type Pagination = 'checkpoint' | 'offset';

/** What a non-2xx status the operation expects means: already present (409 on create), already gone (404 on delete). */
export type ExpectedOutcome = 'present' | 'gone';

export interface OperationDescriptor {
  /** Stable name, used in errors and debug lines: "createRateLimitPolicy". */
  name: string;
  /** The smallest API profile that has this operation. */
  profile: ApiProfile;
  method: HttpMethod;
  /**
   * Path below the API base, with one {name} per path parameter:
   * "/rate-limit-policies/{id}". Each parameter is sent as exactly one
   * percent-encoded segment. {id} is the recorded server id; any other name is
   * the resource attribute of that name.
   */
  path: string;
  /** What each path parameter is, for errors about an unusable value: { id: 'rate limit policy id' }. */
  params: Readonly<Record<string, string>>;
  /** The scope a token needs (named in 403 messages, enforced by the emulator). */
  scope: string;
  /** Schema of the request body; absent when the request has no body. */
  request?: SchemaName;
  /** Schema the success body is checked against; absent when the body is not read. */
  response?: SchemaName;
  /** Success statuses the API documents. The client takes any 2xx as success. */
  success: readonly number[];
  /** Non-2xx statuses that are outcomes rather than errors. */
  outcomes: Readonly<Partial<Record<number, ExpectedOutcome>>>;
  /** Resources sharing this attribute's value go in one request (permissions: one POST per user). */
  batchKey?: string;
  /** List operations: how the answer pages. */
  pagination?: Pagination;
  /**
   * List operations: the key of the answer's array of resources. For offset
   * pagination the answer is that array itself unless include_totals=true.
   */
  itemsKey?: string;
  /** List operations: attributes the list can be filtered by (query parameters of the same name). */
  filters?: readonly string[];
  /** List operations: items per page when the request names none, and the most it may ask for. */
  pageSize?: { default: number; max: number };
  /**
   * Offset lists: how the answer carries its `total`. 'asked' (the default):
   * only with `include_totals=true`, else the answer is the bare array;
   * 'always': the answer is always an object with `total` and the list takes
   * no `include_totals` (Actions).
   */
  totals?: 'asked' | 'always';
}

/** A query string's parameters; a list of values repeats the parameter (`identifiers=a&identifiers=b`). */
export type ListQuery = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** Page sizes of the real service's list operations: 50 unless asked, at most 100. */
export const LIST_PAGE_SIZE = { default: 50, max: 100 } as const;

/**
 * The operations the API has for one kind. A kind without `delete` cannot be
 * removed (a removal becomes a forget); without `update` a change needs a
 * replace (delete, then create) or cannot be made; without `list` and `get`
 * the recorded settings are never compared with the tenant.
 */
export interface KindOperations extends OperationTable {
  create: OperationDescriptor;
}

const OPERATION_KEYS = ['create', 'update', 'delete', 'list', 'get'] as const;

/** Any declaration's operations by their role: a kind's have `create`, a reference list's only `list`. */
export type OperationTable = { [K in (typeof OPERATION_KEYS)[number]]?: OperationDescriptor };

/** What operationsFor reads of a kind module. */
interface WithOperations {
  name: string;
  operations: KindOperations;
}

const byProfile = new Map<ApiProfile, WeakMap<WithOperations, KindOperations>>(
  API_PROFILES.map((p) => [p, new WeakMap()]),
);

/**
 * The operations a tenant with API profile `profile` offers for `kind`: the
 * kind's table without the operations of larger profiles. The same object for
 * the same arguments, holding the kind's own descriptor objects.
 */
export function operationsFor(kind: WithOperations, profile: ApiProfile): KindOperations {
  const cache = byProfile.get(profile);
  if (!cache) throw new Error(`unknown API profile ${String(profile)}`);
  let table = cache.get(kind);
  if (!table) {
    const all = kind.operations;
    if (!profileIncludes(profile, all.create.profile)) {
      throw new Error(`internal: ${kind.name} has no create operation under API profile ${profile}`);
    }
    const picked: KindOperations = { create: all.create };
    for (const key of OPERATION_KEYS) {
      const op = all[key];
      if (key !== 'create' && op && profileIncludes(profile, op.profile)) picked[key] = op;
    }
    table = Object.freeze(picked);
    cache.set(kind, table);
  }
  return table;
}

/** Every descriptor of `operations`, in table order. */
export function descriptorsOf(operations: OperationTable): OperationDescriptor[] {
  return OPERATION_KEYS.flatMap((key) => (operations[key] ? [operations[key]] : []));
}

/** The {name} parameters of a path template, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/** True when the operation's path carries the recorded server id. */
export function needsId(op: OperationDescriptor): boolean {
  return pathParams(op.path).includes('id');
}

/**
 * The path parameter values of `op` for one resource: {id} from the recorded
 * id, any other name from the attribute of that name. Null when the id is
 * needed and unknown.
 */
export function paramsFor(
  op: OperationDescriptor,
  resource: { id: string | null; attributes: { [key: string]: unknown } },
): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const name of pathParams(op.path)) {
    if (name === 'id') {
      if (resource.id === null) return null;
      out.id = resource.id;
    } else {
      out[name] = String(resource.attributes[name]);
    }
  }
  return out;
}
