import { describe, expect, it } from 'vitest';
import { KINDS } from './kinds.js';
import { needsId, paramsFor, pathParams, type OperationDescriptor } from './operations.js';
import { rateLimitPolicy } from './rate-limit-policy.js';
import { userPermission } from './user-permission.js';

const permission = {
  user_id: 'auth0|a/b',
  resource_server_identifier: 'https://api.example',
  permission_name: 'read:x',
};

describe('operation descriptors', () => {
  it('reads the path parameters of a template in order', () => {
    expect(pathParams('/users/{user_id}/things/{id}')).toEqual(['user_id', 'id']);
    expect(pathParams('/rate-limit-policies')).toEqual([]);
  });

  it('fills {id} from the recorded id and other parameters from the attributes', () => {
    expect(paramsFor(rateLimitPolicy.operations.delete!, { id: 'rlp_1', attributes: {} })).toEqual({
      id: 'rlp_1',
    });
    expect(paramsFor(userPermission.operations.create, { id: null, attributes: permission })).toEqual({
      user_id: 'auth0|a/b',
    });
  });

  it('has no parameters for an operation that needs the id when the record has none', () => {
    expect(paramsFor(rateLimitPolicy.operations.delete!, { id: null, attributes: {} })).toBeNull();
    expect(needsId(rateLimitPolicy.operations.delete!)).toBe(true);
    expect(needsId(userPermission.operations.create)).toBe(false);
  });

  it.each(KINDS.map((kind) => [kind.name, kind] as const))(
    '%s: every descriptor labels exactly its path parameters and expects only non-2xx outcomes',
    (_name, kind) => {
      const ops = Object.values(kind.operations).filter((op): op is OperationDescriptor => op !== undefined);
      for (const op of ops) {
        expect(Object.keys(op.params).sort()).toEqual(pathParams(op.path).sort());
        for (const status of Object.keys(op.outcomes)) expect(Number(status)).toBeGreaterThanOrEqual(300);
        for (const status of op.success) expect(status >= 200 && status < 300).toBe(true);
        if (op.batchKey) expect(pathParams(op.path)).toContain(op.batchKey);
      }
    },
  );

  it('builds one request body for a batch of permissions', () => {
    expect(userPermission.requestBody([permission, { ...permission, permission_name: 'write:x' }])).toEqual({
      permissions: [
        { resource_server_identifier: 'https://api.example', permission_name: 'read:x' },
        { resource_server_identifier: 'https://api.example', permission_name: 'write:x' },
      ],
    });
  });
});
