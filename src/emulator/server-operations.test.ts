import { describe, expect, it } from 'vitest';
import { expectErrorBody, grants, policy, profile, useEmulator } from '../../test/helpers/emulator-calls.js';
import { matchesSchema } from '../schemas/index.js';

const emulator = useEmulator(['auth0|abc', 'auth0|a/b', 'google-oauth2|42']);
const { call } = emulator;

describe('create rate limit policy', () => {
  it('answers 201 with the full policy object', async () => {
    const res = await call('POST', '/rate-limit-policies', { json: policy });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...policy, id: expect.stringMatching(/^rlp_[A-Za-z0-9]{21}$/) });
    expect(matchesSchema('rateLimitPolicy', res.body)).toBe(true);
    const { created_at, updated_at } = res.body as { created_at: string; updated_at: string };
    expect(new Date(created_at).toISOString()).toBe(created_at);
    expect(updated_at).toBe(created_at);
    expect(emulator.current().snapshot().rateLimitPolicies).toEqual([res.body]);
  });

  it('answers 409 for a second policy with the same resource, consumer and selector', async () => {
    await call('POST', '/rate-limit-policies', { json: policy });
    const res = await call('POST', '/rate-limit-policies', {
      json: { ...policy, configuration: { action: 'allow' } },
    });
    expect(res.status).toBe(409);
    expectErrorBody(res.body, 409);
    expect(res.body).toMatchObject({ error: 'Conflict', errorCode: 'rate_limit_policy_conflict' });
    expect(emulator.current().snapshot().rateLimitPolicies).toHaveLength(1);
  });

  it.each([
    ['a missing field', { ...policy, resource: undefined }, 'missing required property "resource"'],
    ['an unknown property', { ...policy, id: 'rlp_x' }, 'unknown property "id"'],
    [
      'a limit over 10000',
      { ...policy, configuration: { action: 'log', limit: 10001 } },
      'limit must be at most 10000',
    ],
    [
      'a negative limit',
      { ...policy, configuration: { action: 'log', limit: -1 } },
      'limit must be at least 0',
    ],
    [
      'an http redirect',
      { ...policy, configuration: { action: 'redirect', limit: 5, redirect_uri: 'http://x.example' } },
      'redirect_uri must be an absolute https:// URI',
    ],
    [
      'a limit on allow',
      { ...policy, configuration: { action: 'allow', limit: 3 } },
      'unknown property "limit"',
    ],
    [
      'a long selector',
      { ...policy, consumer_selector: `client_id:${'a'.repeat(250)}` },
      'at most 255 characters',
    ],
    ['a list instead of an object', [policy], 'the document must be a mapping'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const res = await call('POST', '/rate-limit-policies', { json: body });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400);
    expect((res.body as { message: string }).message).toContain(message);
  });

  it('names the nested place of a missing field', async () => {
    const res = await call('POST', '/rate-limit-policies', {
      json: { ...policy, configuration: { action: 'block' } },
    });
    expect((res.body as { message: string }).message).toBe(
      'Payload validation error: configuration: missing required property "limit"',
    );
  });

  it.each([
    ['malformed JSON', '{"resource":', 'application/json', 400],
    ['an empty body', '', 'application/json', 400],
    ['text/plain', JSON.stringify(policy), 'text/plain', 415],
    ['a non-UTF-8 charset', JSON.stringify(policy), 'application/json; charset=latin1', 415],
  ])('answers %s with %i', async (_name, raw, contentType, status) => {
    const res = await call('POST', '/rate-limit-policies', { raw, contentType });
    expect(res.status).toBe(status);
    expectErrorBody(res.body, status);
  });

  it('accepts a form body with bracket notation and an integer limit', async () => {
    const form =
      'resource=oauth_authentication_api&consumer=client&consumer_selector=default' +
      '&configuration%5Baction%5D=redirect&configuration[limit]=25&configuration[redirect_uri]=https%3A%2F%2Fx.example%2Fslow';
    const res = await call('POST', '/rate-limit-policies', { form });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      consumer_selector: 'default',
      configuration: { action: 'redirect', limit: 25, redirect_uri: 'https://x.example/slow' },
    });
  });

  it('validates form values with the same messages as JSON', async () => {
    const form =
      'resource=oauth_authentication_api&consumer=client&consumer_selector=default&configuration[action]=block&configuration[limit]=ten';
    const res = await call('POST', '/rate-limit-policies', { form });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain('limit must be a whole number');
  });
});

describe('delete rate limit policy', () => {
  it('answers 204 with an empty body, then 404 for the same id', async () => {
    const created = await call('POST', '/rate-limit-policies', { json: policy });
    const id = (created.body as { id: string }).id;
    const res = await call('DELETE', `/rate-limit-policies/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // Under spec as before: the spec shows no answer, so none is invented (with --api full, as observed).
    expect(res.headers.get('content-type')).toBeNull();
    expect(emulator.current().snapshot().rateLimitPolicies).toEqual([]);
    const again = await call('DELETE', `/rate-limit-policies/${id}`);
    expect(again.status).toBe(404);
    expectErrorBody(again.body, 404);
  });

  it('lets the identity be created again after a delete', async () => {
    const created = await call('POST', '/rate-limit-policies', { json: policy });
    await call('DELETE', `/rate-limit-policies/${(created.body as { id: string }).id}`);
    expect((await call('POST', '/rate-limit-policies', { json: policy })).status).toBe(201);
  });

  it.each([
    ['an unknown id', 'rlp_000000000000000000000', 404],
    ['an id longer than 26 characters', `rlp_${'a'.repeat(23)}`, 400],
    ['a malformed escape', 'rlp_%E0%A4%A', 400],
  ])('answers %s with %i', async (_name, id, status) => {
    const res = await call('DELETE', `/rate-limit-policies/${id}`);
    expect(res.status).toBe(status);
    expectErrorBody(res.body, status);
  });
});

describe('assign permissions', () => {
  it('answers 201 with {} and decodes | in the user id', async () => {
    const res = await call('POST', '/users/auth0%7Cabc/permissions', { json: grants });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({});
    expect(emulator.current().snapshot().userPermissions).toEqual({ 'auth0|abc': grants.permissions });
  });

  it('keeps an encoded slash inside the user id', async () => {
    const res = await call('POST', '/users/auth0%7Ca%2Fb/permissions', { json: grants });
    expect(res.status).toBe(201);
    expect(Object.keys(emulator.current().snapshot().userPermissions)).toEqual(['auth0|a/b']);
  });

  it('treats re-assigning a held permission as a success', async () => {
    await call('POST', '/users/auth0%7Cabc/permissions', { json: grants });
    const more = {
      permissions: [
        ...grants.permissions,
        { resource_server_identifier: 'https://api.example.com', permission_name: 'write:x' },
      ],
    };
    const res = await call('POST', '/users/auth0%7Cabc/permissions', { json: more });
    expect(res.status).toBe(201);
    expect(emulator.current().snapshot().userPermissions['auth0|abc']).toEqual(more.permissions);
  });

  it('accepts a form body with indexed items', async () => {
    const form =
      'permissions[0][resource_server_identifier]=https%3A%2F%2Fapi&permissions[0][permission_name]=read%3Ax' +
      '&permissions[1][resource_server_identifier]=https%3A%2F%2Fapi&permissions[1][permission_name]=write%3Ax';
    const res = await call('POST', '/users/google-oauth2%7C42/permissions', { form });
    expect(res.status).toBe(201);
    expect(emulator.current().snapshot().userPermissions['google-oauth2|42']).toHaveLength(2);
  });

  it('answers 404 for a user outside the --users list', async () => {
    const res = await call('POST', '/users/auth0%7Cnobody/permissions', { json: grants });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_user' });
  });

  it.each([
    ['an empty list', { permissions: [] }, 'permissions must list at least 1 item'],
    [
      'an item without a name',
      { permissions: [{ resource_server_identifier: 'x' }] },
      'permissions[0]: missing required',
    ],
    ['no permissions', {}, 'missing required property "permissions"'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const res = await call('POST', '/users/auth0%7Cabc/permissions', { json: body });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain(message);
  });
});

describe('create token exchange profile', () => {
  it('answers 201 with the full profile object', async () => {
    const res = await call('POST', '/token-exchange-profiles', { json: profile });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...profile, id: expect.stringMatching(/^tep_[A-Za-z0-9]{16}$/) });
    expect(matchesSchema('tokenExchangeProfile', res.body)).toBe(true);
    expect(Object.keys(res.body as object).sort()).toEqual(
      ['action_id', 'created_at', 'id', 'name', 'subject_token_type', 'type', 'updated_at'].sort(),
    );
  });

  it('answers 409 for a second profile with the same subject_token_type', async () => {
    await call('POST', '/token-exchange-profiles', { json: profile });
    const res = await call('POST', '/token-exchange-profiles', { json: { ...profile, name: 'Other name' } });
    expect(res.status).toBe(409);
    expectErrorBody(res.body, 409);
  });

  it.each([
    ['a short name', { ...profile, name: 'ab' }, 'name must be at least 3 characters long'],
    [
      'a subject_token_type that is not a URI',
      { ...profile, subject_token_type: 'not a uri' },
      'subject_token_type must be',
    ],
    ['another type', { ...profile, type: 'other' }, 'type must be one of: custom_authentication'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const res = await call('POST', '/token-exchange-profiles', { json: body });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain(message);
  });

  it('answers 415 to a form body (the spec lists JSON only)', async () => {
    const res = await call('POST', '/token-exchange-profiles', { form: 'name=abc' });
    expect(res.status).toBe(415);
  });
});
