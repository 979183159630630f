/**
 * Proves the emulator's wire format with clients that share no code with it:
 * plain fetch, and the official auth0 SDK (v7 ManagementClient). The SDK always
 * builds https://DOMAIN/api/v2 URLs and has no baseUrl option, so it gets a
 * `fetch` that sends each request unchanged (method, headers, body, path and
 * query) to the emulator's origin instead; nothing else is adapted.
 */
import type { ManagementClient } from 'auth0';
import { ManagementError } from 'auth0';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { emptyTenant } from './helpers/kind-examples.js';
import { SDK_DOMAIN, sdkClient } from './helpers/sdk.js';

let emu: EmulatorHandle;

beforeEach(async () => {
  emu = await startEmulator({ users: ['auth0|5f7c8ec7c33c6c004bbafe82'], rateLimit: { perSecond: 50 } });
});
afterEach(async () => {
  await emu.stop();
});

const DOMAIN = SDK_DOMAIN;

const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'client_id:AaiyAPdpYdesoKnqjj8HJqRn4T5titww',
  configuration: { action: 'block', limit: 100 },
} as const;
const permissions = [
  { resource_server_identifier: 'https://api.example.com', permission_name: 'read:reports' },
];
const profile = {
  name: 'Legacy IdP tokens',
  subject_token_type: 'urn:legacy-idp:access-token',
  action_id: 'a8f1c2d4-7e9b-4c3a-9f0e-1b2c3d4e5f60',
  type: 'custom_authentication',
} as const;

describe('official auth0 SDK', () => {
  function client(): ManagementClient {
    return sdkClient(emu, { onUrl: (url) => expect(url.origin).toBe(`https://${DOMAIN}`) });
  }

  it('gets a token by client credentials and runs all four operations', async () => {
    const sdk = client();
    const created = await sdk.rateLimitPolicies.create(policy);
    expect(created).toMatchObject({ ...policy, id: expect.stringMatching(/^rlp_/) });
    await sdk.users.permissions.create('auth0|5f7c8ec7c33c6c004bbafe82', { permissions });
    const tep = await sdk.tokenExchangeProfiles.create(profile);
    expect(tep).toMatchObject({ ...profile, id: expect.stringMatching(/^tep_/) });
    await sdk.rateLimitPolicies.delete(created.id!);
    expect(emu.snapshot()).toEqual({
      ...emptyTenant(),
      rateLimitPolicies: [],
      userPermissions: { 'auth0|5f7c8ec7c33c6c004bbafe82': permissions },
      tokenExchangeProfiles: [tep],
    });
  });

  it.each([
    [
      '409 for a duplicate policy',
      async (sdk: ManagementClient) => {
        await sdk.rateLimitPolicies.create(policy);
        await sdk.rateLimitPolicies.create(policy);
      },
      409,
    ],
    [
      '404 for an unknown policy id',
      (sdk: ManagementClient) => sdk.rateLimitPolicies.delete('rlp_unknown'),
      404,
    ],
    [
      '404 for an unknown user',
      (sdk: ManagementClient) => sdk.users.permissions.create('auth0|nobody', { permissions }),
      404,
    ],
    [
      '400 for an invalid profile',
      (sdk: ManagementClient) => sdk.tokenExchangeProfiles.create({ ...profile, name: 'x' }),
      400,
    ],
  ])('surfaces %s as a typed error with the error body', async (_name, run, status) => {
    const error = await run(client()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ManagementError);
    expect((error as ManagementError).statusCode).toBe(status);
    expect((error as ManagementError).body).toMatchObject({
      statusCode: status,
      message: expect.any(String),
    });
  });

  it('sees 401 with a token of another signer and 403 with a token lacking the scope', async () => {
    const withToken = (token: string) => sdkClient(emu, { token });
    const foreign = `${emu.token.slice(0, emu.token.lastIndexOf('.'))}.c2lnbmF0dXJl`;
    await expect(withToken(foreign).rateLimitPolicies.create(policy)).rejects.toMatchObject({
      statusCode: 401,
    });
    const narrow = emu.issueToken({ scopes: ['update:users'] });
    await expect(withToken(narrow).rateLimitPolicies.create(policy)).rejects.toMatchObject({
      statusCode: 403,
    });
  });
});

describe('official auth0 SDK against --api full: list and get', () => {
  let full: EmulatorHandle;
  beforeEach(async () => {
    full = await startEmulator({
      api: 'full',
      users: ['auth0|5f7c8ec7c33c6c004bbafe82'],
      seed: referenceSeed({
        actions: [profile.action_id],
        permissions: Array.from({ length: 5 }, (_, i) => ['https://api.example.com', `read:r${i}`] as const),
      }),
    });
  });
  afterEach(async () => {
    await full.stop();
  });

  function client(): ManagementClient {
    return sdkClient(full);
  }

  async function all<T>(page: AsyncIterable<T>): Promise<T[]> {
    const items: T[] = [];
    for await (const item of page) items.push(item);
    return items;
  }

  it('pages through rate limit policies past the first page, filters them and gets one', async () => {
    const sdk = client();
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push(await sdk.rateLimitPolicies.create({ ...policy, consumer_selector: `client_id:app${i}` }));
    }
    const first = await sdk.rateLimitPolicies.list({ take: 3 });
    expect(first.data).toEqual(made.slice(0, 3));
    expect(first.hasNextPage()).toBe(true);
    expect(await all(await sdk.rateLimitPolicies.list({ take: 3 }))).toEqual(made);
    const last = await (await (await sdk.rateLimitPolicies.list({ take: 3 })).getNextPage()).getNextPage();
    expect(last.data).toEqual(made.slice(6));
    expect(last.hasNextPage()).toBe(false);
    const filtered = await sdk.rateLimitPolicies.list({
      consumer: 'client',
      consumer_selector: 'client_id:app4',
    });
    expect(filtered.data).toEqual([made[4]]);
    expect(await sdk.rateLimitPolicies.get(made[5]!.id!)).toEqual(made[5]);
    await expect(sdk.rateLimitPolicies.get('rlp_unknown')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('pages through token exchange profiles and gets one', async () => {
    const sdk = client();
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await sdk.tokenExchangeProfiles.create({ ...profile, subject_token_type: `urn:legacy-idp:t${i}` }),
      );
    }
    expect(await all(await sdk.tokenExchangeProfiles.list({ take: 2 }))).toEqual(made);
    expect(await sdk.tokenExchangeProfiles.get(made[3]!.id!)).toEqual(made[3]);
  });

  it('pages through a user’s permissions (offset pages with totals, as the SDK asks)', async () => {
    const sdk = client();
    const user = 'auth0|5f7c8ec7c33c6c004bbafe82';
    const grants = Array.from({ length: 5 }, (_, i) => ({
      resource_server_identifier: 'https://api.example.com',
      permission_name: `read:r${i}`,
    }));
    await sdk.users.permissions.create(user, { permissions: grants });
    const first = await sdk.users.permissions.list(user, { per_page: 2 });
    expect(first.response).toMatchObject({ start: 0, limit: 2, total: 5 });
    // Read tolerantly: the items also carry the API's name, a description and the sources (observed).
    const listed = await all(await sdk.users.permissions.list(user, { per_page: 2 }));
    expect(listed).toEqual(grants.map((g) => expect.objectContaining(g)));
    expect(listed[0]).toHaveProperty('sources');
    await expect(sdk.users.permissions.list('auth0|nobody')).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('plain fetch', () => {
  async function send(method: string, path: string, body?: unknown) {
    const res = await fetch(`${emu.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emu.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(res.headers.get(name)).toMatch(/^\d+$/);
    }
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), text };
  }

  it('answers each operation with the status and body the facts describe', async () => {
    const created = await send('POST', '/rate-limit-policies', policy);
    expect(created.status).toBe(201);
    expect(created.type).toBe('application/json; charset=utf-8');
    const { id } = JSON.parse(created.text) as { id: string };
    expect(id).toMatch(/^rlp_[A-Za-z0-9]{21}$/);

    const assigned = await send(
      'POST',
      `/users/${encodeURIComponent('auth0|5f7c8ec7c33c6c004bbafe82')}/permissions`,
      {
        permissions,
      },
    );
    expect(assigned).toMatchObject({ status: 201, text: '{}' });

    const tep = await send('POST', '/token-exchange-profiles', profile);
    expect(tep.status).toBe(201);
    expect(JSON.parse(tep.text)).toMatchObject({ id: expect.stringMatching(/^tep_[A-Za-z0-9]{16}$/) });

    expect(await send('DELETE', `/rate-limit-policies/${id}`)).toMatchObject({ status: 204, text: '' });
    const gone = await send('DELETE', `/rate-limit-policies/${id}`);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.text)).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: expect.any(String),
      errorCode: 'inexistent_rate_limit_policy',
    });
  });
});
