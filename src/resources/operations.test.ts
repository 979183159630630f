import { describe, expect, it } from 'vitest';
import { KINDS } from './kinds.js';
import {
  API_PROFILES,
  descriptorsOf,
  needsId,
  operationsFor,
  paramsFor,
  pathParams,
  profileIncludes,
  type OperationDescriptor,
} from './operations.js';
import { rateLimitPolicy } from './rate-limit-policy.js';
import { tokenExchangeProfile } from './token-exchange-profile.js';
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

  it.each(KINDS.map((kind) => [kind.name, kind] as const))(
    '%s: list descriptors name their pagination and array key; others name neither',
    (_name, kind) => {
      for (const op of descriptorsOf(kind.operations)) {
        const isList = op === kind.operations.list;
        expect(op.pagination !== undefined, op.name).toBe(isList);
        expect(op.itemsKey !== undefined, op.name).toBe(isList);
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

describe('operationsFor', () => {
  const names = (kind: Parameters<typeof operationsFor>[0], profile: 'spec' | 'full') =>
    Object.fromEntries(Object.entries(operationsFor(kind, profile)).map(([key, op]) => [key, op.name]));

  it('under spec is the spec’s four operations, as before the profiles existed', () => {
    expect(names(rateLimitPolicy, 'spec')).toEqual({
      create: 'createRateLimitPolicy',
      delete: 'deleteRateLimitPolicy',
    });
    expect(names(userPermission, 'spec')).toEqual({ create: 'assignUserPermissions' });
    expect(names(tokenExchangeProfile, 'spec')).toEqual({ create: 'createTokenExchangeProfile' });
  });

  it('under full adds update, delete, list and get as the real API has them', () => {
    expect(names(rateLimitPolicy, 'full')).toEqual({
      create: 'createRateLimitPolicy',
      update: 'updateRateLimitPolicy',
      delete: 'deleteRateLimitPolicy',
      list: 'listRateLimitPolicies',
      get: 'getRateLimitPolicy',
    });
    expect(names(userPermission, 'full')).toEqual({
      create: 'assignUserPermissions',
      delete: 'removeUserPermissions',
      list: 'listUserPermissions',
    });
    expect(names(tokenExchangeProfile, 'full')).toEqual({
      create: 'createTokenExchangeProfile',
      update: 'updateTokenExchangeProfile',
      delete: 'deleteTokenExchangeProfile',
      list: 'listTokenExchangeProfiles',
      get: 'getTokenExchangeProfile',
    });
  });

  it.each(KINDS.map((kind) => [kind.name, kind] as const))(
    '%s: each profile has exactly the descriptors its profile includes, the same objects each time',
    (_name, kind) => {
      for (const profile of API_PROFILES) {
        const table = operationsFor(kind, profile);
        expect(operationsFor(kind, profile)).toBe(table);
        expect(descriptorsOf(table)).toEqual(
          descriptorsOf(kind.operations).filter((op) => profileIncludes(profile, op.profile)),
        );
      }
    },
  );

  it('orders the profiles: full includes spec, spec does not include full', () => {
    expect(profileIncludes('full', 'spec')).toBe(true);
    expect(profileIncludes('spec', 'full')).toBe(false);
  });

  it('batches removals of permissions per user like assignments', () => {
    const remove = operationsFor(userPermission, 'full').delete!;
    expect(remove).toMatchObject({
      method: 'DELETE',
      path: '/users/{user_id}/permissions',
      batchKey: 'user_id',
    });
    expect(needsId(remove)).toBe(false);
  });
});
