/**
 * Reading success bodies. A created object is checked against its schema in
 * schemas/; a body that does not match is an ApiError (API_BAD_RESPONSE) that
 * names the operation and the schema's complaints, never the body itself.
 */
import { checkSchema, type SchemaName } from '../schemas/index.js';
import { DEFAULT_TOKEN_LIFETIME_SEC, type FetchedToken } from './auth.js';
import type { CallSpec } from './caller.js';
import { ApiError } from './errors.js';
import type { WireResponse } from './transport.js';

function badResponse(
  spec: Pick<CallSpec, 'operation' | 'method' | 'path'>,
  status: number,
  why: string,
): ApiError {
  return new ApiError(`${spec.operation}: ${spec.method} ${spec.path} answered ${status} with ${why}`, {
    code: 'API_BAD_RESPONSE',
    status,
    error: 'Bad response',
    method: spec.method,
    path: spec.path,
    operation: spec.operation,
    retryable: false,
    attempts: 1,
  });
}

function parseJson(res: WireResponse, spec: Pick<CallSpec, 'operation' | 'method' | 'path'>): unknown {
  if (res.body.trim() === '')
    throw badResponse(spec, res.status, 'an empty body where an object was expected');
  try {
    return JSON.parse(res.body);
  } catch {
    throw badResponse(spec, res.status, 'a body that is not JSON');
  }
}

/** The created object of a 2xx answer, checked against `schema`. */
export function parseCreated<T>(schema: SchemaName, res: WireResponse, spec: CallSpec): T {
  const value = parseJson(res, spec);
  const issues = checkSchema(schema, value);
  if (issues.length > 0) {
    const listed = issues
      .slice(0, 3)
      .map((i) => i.message)
      .join('; ');
    const more = issues.length > 3 ? `; and ${issues.length - 3} more` : '';
    throw badResponse(spec, res.status, `a body that is not a valid ${schema} object (${listed}${more})`);
  }
  return value as T;
}

/** The access token and lifetime from a token endpoint answer. */
export function parseToken(body: string, path: string): FetchedToken {
  const spec = { operation: 'fetchToken', method: 'POST' as const, path };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw badResponse(spec, 200, 'a body that is not JSON');
  }
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const token = obj.access_token;
  if (typeof token !== 'string' || token === '' || /\s/.test(token)) {
    throw badResponse(spec, 200, 'no usable access_token');
  }
  const expires = obj.expires_in;
  const expiresInSec =
    typeof expires === 'number' && Number.isFinite(expires) && expires > 0
      ? expires
      : DEFAULT_TOKEN_LIFETIME_SEC;
  return { accessToken: token, expiresInSec };
}
