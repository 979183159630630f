import type { SchemaName } from '../schemas/index.js';

/**
 * API operations as data. Each kind module lists the operations the Tenant
 * Management API has for it; the client sends any of them through one call
 * path (api/ `call`), the executor picks them from the kind's table (apply/),
 * the planner asks which exist (plan/), and the emulator serves the same
 * descriptors (a test holds its routes to them).
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a non-2xx status the operation expects means: already present (409 on create), already gone (404 on delete). */
export type ExpectedOutcome = 'present' | 'gone';

export interface OperationDescriptor {
  /** Stable name, used in errors and debug lines: "createRateLimitPolicy". */
  name: string;
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
}

/**
 * The operations the API has for one kind. A kind without `delete` cannot be
 * removed (a removal becomes a forget); without `update` a change needs a
 * replace (delete, then create) or cannot be made; without `read` the recorded
 * settings are never compared with the tenant.
 */
export interface KindOperations {
  create: OperationDescriptor;
  delete?: OperationDescriptor;
  update?: OperationDescriptor;
  read?: OperationDescriptor;
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
