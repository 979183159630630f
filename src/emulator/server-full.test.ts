/**
 * The operations of API profile full that change the tenant: PATCH and DELETE
 * of policies and profiles, DELETE of a user's permissions, with the real
 * service's shapes and statuses.
 */
import { describe, expect, it } from 'vitest';
import { expectErrorBody, grants, policy, profile, useEmulator } from '../../test/helpers/emulator-calls.js';
import { referenceSeed } from '../../test/helpers/reference-seed.js';
import { matchesSchema } from '../schemas/index.js';

let clock = Date.UTC(2026, 0, 1);
const emulator = useEmulator(['auth0|abc', 'auth0|a/b'], {
  api: 'full',
  now: () => clock,
  seed: referenceSeed({
    actions: [profile.action_id],
    permissions: [
      ['https://api.example.com', 'read:x'],
      ['https://api.example.com', 'write:x'],
    ],
  }),
});
const { call } = emulator;

async function createPolicy(): Promise<{ id: string; updated_at: string; created_at: string }> {
  const res = await call('POST', '/rate-limit-policies', { json: policy });
  expect(res.status).toBe(201);
  return res.body as { id: string; updated_at: string; created_at: string };
}

async function createProfile(body = profile): Promise<string> {
  const res = await call('POST', '/token-exchange-profiles', { json: body });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

describe('update rate limit policy (PATCH)', () => {
  it('answers 200 with the whole policy: same id, new configuration, later updated_at', async () => {
    const made = await createPolicy();
    clock += 5_000;
    const res = await call('PATCH', `/rate-limit-policies/${made.id}`, {
      json: { configuration: { action: 'log', limit: 99 } },
    });
    expect(res.status).toBe(200);
    expect(matchesSchema('rateLimitPolicy', res.body)).toBe(true);
    expect(res.body).toEqual({
      ...policy,
      id: made.id,
      configuration: { action: 'log', limit: 99 },
      created_at: made.created_at,
      updated_at: new Date(clock).toISOString(),
    });
    expect(emulator.current().snapshot().rateLimitPolicies).toEqual([res.body]);
  });

  it('moves updated_at on even when the clock has not moved', async () => {
    const made = await createPolicy();
    const res = await call('PATCH', `/rate-limit-policies/${made.id}`, {
      json: { configuration: { action: 'allow' } },
    });
    expect(Date.parse((res.body as { updated_at: string }).updated_at)).toBeGreaterThan(
      Date.parse(made.updated_at),
    );
  });

  it('is idempotent: the same PATCH twice leaves the same configuration', async () => {
    const made = await createPolicy();
    const body = { json: { configuration: { action: 'block', limit: 3 } } };
    await call('PATCH', `/rate-limit-policies/${made.id}`, body);
    const again = await call('PATCH', `/rate-limit-policies/${made.id}`, body);
    expect(again.status).toBe(200);
    expect(
      emulator
        .current()
        .snapshot()
        .rateLimitPolicies.map((p) => p.configuration),
    ).toEqual([{ action: 'block', limit: 3 }]);
  });

  it.each([
    [
      'an identity field',
      { configuration: { action: 'allow' }, consumer_selector: 'default' },
      'unknown property "consumer_selector"',
    ],
    ['no configuration', {}, 'missing required property "configuration"'],
    ['a limit over 10000', { configuration: { action: 'log', limit: 10001 } }, 'limit must be at most 10000'],
  ])('answers 400 for %s and changes nothing', async (_name, body, message) => {
    const made = await createPolicy();
    const res = await call('PATCH', `/rate-limit-policies/${made.id}`, { json: body });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400);
    expect((res.body as { message: string }).message).toContain(message);
    expect(emulator.current().snapshot().rateLimitPolicies[0]!.configuration).toEqual(policy.configuration);
  });

  it('answers 404 for an unknown id and 400 for an id over 26 characters', async () => {
    const body = { json: { configuration: { action: 'allow' } } };
    const missing = await call('PATCH', '/rate-limit-policies/rlp_nothere', body);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ errorCode: 'inexistent_rate_limit_policy' });
    const long = await call('PATCH', `/rate-limit-policies/rlp_${'x'.repeat(23)}`, body);
    expect(long.status).toBe(400);
  });
});

describe('update token exchange profile (PATCH)', () => {
  it('answers 200 with the whole profile (observed); name and subject_token_type change, updated_at moves on', async () => {
    const id = await createProfile();
    clock += 1_000;
    const res = await call('PATCH', `/token-exchange-profiles/${id}`, {
      json: { name: 'Renamed', subject_token_type: 'urn:partner:other' },
    });
    expect(res.status).toBe(200);
    const [stored] = emulator.current().snapshot().tokenExchangeProfiles;
    expect(res.body).toEqual(stored);
    expect(stored).toMatchObject({
      id,
      name: 'Renamed',
      subject_token_type: 'urn:partner:other',
      action_id: profile.action_id,
      updated_at: new Date(clock).toISOString(),
    });
    // The old subject_token_type is free again; the new one is taken.
    expect((await call('POST', '/token-exchange-profiles', { json: profile })).status).toBe(201);
    const taken = await call('POST', '/token-exchange-profiles', {
      json: { ...profile, subject_token_type: 'urn:partner:other' },
    });
    expect(taken.status).toBe(409);
  });

  it('answers 409 for a subject_token_type another profile has, and changes nothing', async () => {
    const id = await createProfile();
    await createProfile({ ...profile, subject_token_type: 'urn:partner:second' });
    const before = emulator.current().snapshot();
    const res = await call('PATCH', `/token-exchange-profiles/${id}`, {
      json: { subject_token_type: 'urn:partner:second', name: 'Clash' },
    });
    expect(res.status).toBe(409);
    expectErrorBody(res.body, 409);
    expect(res.body).toMatchObject({ errorCode: 'token_exchange_profile_conflict' });
    expect(emulator.current().snapshot()).toEqual(before);
  });

  it('accepts its own subject_token_type (a rename that names it again)', async () => {
    const id = await createProfile();
    const res = await call('PATCH', `/token-exchange-profiles/${id}`, {
      json: { name: 'Same type', subject_token_type: profile.subject_token_type },
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['action_id', { action_id: 'act_9' }, 'unknown property "action_id"'],
    ['type', { type: 'custom_authentication' }, 'unknown property "type"'],
    ['an empty body', {}, ''],
  ])('answers 400 for a change of %s', async (_name, body, message) => {
    const id = await createProfile();
    const res = await call('PATCH', `/token-exchange-profiles/${id}`, { json: body });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toContain(message);
  });

  it('answers 404 for an unknown id, with the body of a get (the service sends no errorCode)', async () => {
    const res = await call('PATCH', '/token-exchange-profiles/tep_nothere', { json: { name: 'Nobody' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Token exchange profile not found.',
    });
  });
});

describe('delete rate limit policy', () => {
  it('answers 204 whose Content-Type names JSON all the same, as the service does (observed)', async () => {
    const made = await createPolicy();
    const res = await call('DELETE', `/rate-limit-policies/${made.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('delete token exchange profile', () => {
  it('answers 204 without a Content-Type, and 204 again for the same id (observed); its subject_token_type is free again', async () => {
    const id = await createProfile();
    const res = await call('DELETE', `/token-exchange-profiles/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    expect(emulator.current().snapshot().tokenExchangeProfiles).toEqual([]);
    expect((await call('DELETE', `/token-exchange-profiles/${id}`)).status).toBe(204);
    expect((await call('POST', '/token-exchange-profiles', { json: profile })).status).toBe(201);
  });
});

describe('remove user permissions', () => {
  it('answers 204 and removes exactly the named permissions', async () => {
    const two = {
      permissions: [
        ...grants.permissions,
        { resource_server_identifier: 'https://api.example.com', permission_name: 'write:x' },
      ],
    };
    await call('POST', '/users/auth0%7Cabc/permissions', { json: two });
    const res = await call('DELETE', '/users/auth0%7Cabc/permissions', { json: grants });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // An empty answer that names a JSON body all the same (observed).
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(emulator.current().snapshot().userPermissions).toEqual({ 'auth0|abc': [two.permissions[1]] });
  });

  it('succeeds for a permission the user does not have', async () => {
    const res = await call('DELETE', '/users/auth0%7Ca%2Fb/permissions', { json: grants });
    expect(res.status).toBe(204);
    expect(emulator.current().snapshot().userPermissions).toEqual({});
  });

  it('answers 404 for a user that does not exist and 400 for an empty list', async () => {
    const unknown = await call('DELETE', '/users/auth0%7Cnobody/permissions', { json: grants });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorCode: 'inexistent_user' });
    const empty = await call('DELETE', '/users/auth0%7Cabc/permissions', { json: { permissions: [] } });
    expect(empty.status).toBe(400);
  });
});
