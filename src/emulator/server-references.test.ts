/**
 * The tenant's reference data (applications, Actions, APIs) under API
 * profile full: its lists with the service's shapes and filters, its
 * defaults, seeds and data file, and the refusals of bodies that name what it
 * lacks; and under spec, nothing of it (routes, snapshot and checks exactly
 * as before).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { referenceSeed } from '../../test/helpers/reference-seed.js';
import { emptyTenant } from '../../test/helpers/kind-examples.js';
import { matchesSchema } from '../schemas/index.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorOptions } from './types.js';

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

async function start(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  emu = await startEmulator({ api: 'full', ...options });
  return emu;
}

async function send(e: EmulatorHandle, method: string, path: string, body?: unknown) {
  const res = await fetch(`${e.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${e.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const profileWith = (action_id: string) => ({
  name: 'Partner SSO',
  subject_token_type: 'urn:partner:token',
  action_id,
  type: 'custom_authentication',
});
const grant = (resource_server_identifier: string, permission_name: string) => ({
  permissions: [{ resource_server_identifier, permission_name }],
});

describe('the reference lists (API profile full)', () => {
  it('lists the applications in offset pages, with the fields asked for, as the list schema says', async () => {
    const e = await start({ seed: referenceSeed({ clients: ['a1', 'a2', 'tpa_3'] }) });
    const page = await send(
      e,
      'GET',
      '/clients?fields=client_id,is_first_party&include_fields=true&per_page=2&page=1&include_totals=true',
    );
    // Each item carries the tenant besides the fields asked for (observed).
    expect(page).toEqual({
      status: 200,
      body: {
        start: 2,
        limit: 2,
        total: 3,
        clients: [{ client_id: 'tpa_3', is_first_party: false, tenant: 'emulator' }],
      },
    });
    expect(matchesSchema('clientList', page.body)).toBe(true);
    const excluded = await send(e, 'GET', '/clients?fields=name,app_type&include_fields=false');
    expect(excluded.body).toEqual([
      { client_id: 'a1', is_first_party: true, tenant: 'emulator' },
      { client_id: 'a2', is_first_party: true, tenant: 'emulator' },
      { client_id: 'tpa_3', is_first_party: false, tenant: 'emulator' },
    ]);
  });

  it('applies the app_type and is_first_party filters of the applications list (observed)', async () => {
    const e = await start();
    const ids = async (query: string) =>
      ((await send(e, 'GET', `/clients?fields=client_id&${query}`)).body as { client_id: string }[]).map(
        (c) => c.client_id,
      );
    expect(await ids('is_first_party=false')).toEqual(['tpa_Rk2Lm5Np8Qs1Tv4Wx7Yz0Ab3Cd6Ef9']);
    expect(await ids('app_type=spa')).toEqual([
      'Hs9Jd2Kf5Lg8Zq1Xw4Ce7Vr0Bt3Ny6Mu',
      'Pf6Gh1Jk9Lm3Nq7Rs2Tu5Vw8Xy0Za4Bc',
    ]);
    expect(await ids('app_type=native,non_interactive&is_first_party=true')).toHaveLength(4);
    expect(await send(e, 'GET', '/clients?is_first_party=maybe')).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_query_string' },
    });
  });

  it('leaves page out of the Actions envelope when not asked, and total too when nothing matches (observed)', async () => {
    const e = await start();
    const unpaged = await send(e, 'GET', '/actions/actions?triggerId=custom-token-exchange&per_page=50');
    expect(Object.keys(unpaged.body as object).sort()).toEqual(['actions', 'per_page', 'total']);
    expect(await send(e, 'GET', '/actions/actions?triggerId=no-such-trigger&per_page=50')).toEqual({
      status: 200,
      body: { actions: [], per_page: 50 },
    });
    expect((await send(e, 'GET', '/actions/actions?per_page=5&page=0')).body).toMatchObject({
      page: 0,
      per_page: 5,
      total: 7,
    });
  });

  it('keeps only the fields asked for in the APIs list (observed)', async () => {
    const e = await start();
    const res = await send(e, 'GET', '/resource-servers?fields=id,identifier&per_page=2');
    expect(res.body).toEqual([
      { id: '6650a1b2c3d4e5f6a7b8c901', identifier: 'https://admin.acme.example/api' },
      { id: '6650a1b2c3d4e5f6a7b8c902', identifier: 'https://api.acme.example/orders' },
    ]);
  });

  it('reads an application, an Action and an API by id (an API also by identifier), with the service’s 404s', async () => {
    const e = await start();
    expect(await send(e, 'GET', '/clients/batch-partner-sync?fields=client_id,name')).toEqual({
      status: 200,
      body: { client_id: 'batch-partner-sync', name: 'Partner data sync', tenant: 'emulator' },
    });
    expect(await send(e, 'GET', '/clients/nope')).toEqual({
      status: 404,
      body: {
        statusCode: 404,
        error: 'Not Found',
        message: 'The client does not exist',
        errorCode: 'inexistent_client',
      },
    });
    const action = await send(e, 'GET', '/actions/actions/00000000-0000-4000-8000-000000000000');
    expect(action).toMatchObject({ status: 200, body: { name: 'Example token exchange' } });
    expect(matchesSchema('action', action.body)).toBe(true);
    expect(await send(e, 'GET', '/actions/actions/nope')).toMatchObject({
      status: 404,
      body: { statusCode: 404, error: 'Not Found' },
    });
    const byId = await send(e, 'GET', '/resource-servers/6650a1b2c3d4e5f6a7b8c904');
    const byIdentifier = await send(
      e,
      'GET',
      `/resource-servers/${encodeURIComponent('https://api.example.com/')}`,
    );
    expect(byId).toMatchObject({ status: 200, body: { identifier: 'https://api.example.com/' } });
    expect(byIdentifier).toEqual(byId);
    expect(await send(e, 'GET', '/resource-servers/nope')).toEqual({
      status: 404,
      body: {
        statusCode: 404,
        error: 'Not Found',
        message: 'The resource server does not exist',
        errorCode: 'inexistent_resource_server',
      },
    });
  });

  it('names a permission’s API and description in a user’s permission list, from the tenant’s APIs', async () => {
    const e = await start({ users: ['auth0|1'] });
    const body = {
      permissions: [
        { resource_server_identifier: 'https://api.acme.example/orders', permission_name: 'write:orders' },
        {
          resource_server_identifier: 'https://api.acme.example/customers',
          permission_name: 'read:customers',
        },
        { resource_server_identifier: 'https://api.acme.example/orders', permission_name: 'read:orders' },
      ],
    };
    expect((await send(e, 'POST', '/users/auth0%7C1/permissions', body)).status).toBe(201);
    const list = (await send(e, 'GET', '/users/auth0%7C1/permissions')).body as Record<string, unknown>[];
    // Sorted by permission name across APIs (the order across APIs is the emulator's choice).
    expect(list.map((p) => [p.permission_name, p.resource_server_name, p.description])).toEqual([
      ['read:customers', 'Customers API', 'Read customers'],
      ['read:orders', 'Orders API', 'Read orders'],
      ['write:orders', 'Orders API', 'Write orders'],
    ]);
    expect(list[0]!.sources).toEqual([{ source_id: '', source_name: '', source_type: 'DIRECT' }]);
  });

  it('lists the Actions of a trigger, deployed ones when asked, always with the total', async () => {
    const e = await start();
    const all = await send(e, 'GET', '/actions/actions?per_page=100');
    const bound = await send(e, 'GET', '/actions/actions?triggerId=custom-token-exchange&per_page=100');
    const usable = await send(
      e,
      'GET',
      '/actions/actions?triggerId=custom-token-exchange&deployed=true&per_page=2&page=1',
    );
    expect(matchesSchema('actionList', usable.body)).toBe(true);
    const count = (r: { body?: unknown }) => (r.body as { total: number }).total;
    expect(count(all)).toBeGreaterThan(count(bound));
    expect(count(bound)).toBeGreaterThan(count(usable));
    expect(usable.body).toMatchObject({
      page: 1,
      per_page: 2,
      actions: [expect.anything(), expect.anything()],
    });
  });

  it('lists the APIs named by identifiers, and refuses more than 10 of them', async () => {
    const e = await start();
    const two = await send(
      e,
      'GET',
      `/resource-servers?identifiers=${encodeURIComponent('https://api.example.com/')}&identifiers=https%3A%2F%2Fnope%2F&include_totals=true`,
    );
    expect(matchesSchema('resourceServerList', two.body)).toBe(true);
    expect(two.body).toMatchObject({
      total: 1,
      resource_servers: [{ identifier: 'https://api.example.com/' }],
    });
    const many = Array.from({ length: 11 }, (_, i) => `identifiers=https%3A%2F%2Fapi${i}%2F`).join('&');
    expect(await send(e, 'GET', `/resource-servers?${many}`)).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_query_string' },
    });
  });

  it.each([
    ['does not exist', '11111111-2222-4333-8444-555555555555', 'does not exist'],
    [
      'is bound to another trigger',
      '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
      'not bound to the custom-token-exchange',
    ],
    ['is not deployed', '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d', 'not deployed'],
  ])('refuses a profile whose Action %s with a 400, and creates nothing', async (_case, id, words) => {
    const e = await start();
    const res = await send(e, 'POST', '/token-exchange-profiles', profileWith(id));
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, errorCode: 'invalid_action' } });
    expect((res.body as { message: string }).message).toContain(words);
    expect(e.snapshot().tokenExchangeProfiles).toEqual([]);
    expect(
      (await send(e, 'POST', '/token-exchange-profiles', profileWith('00000000-0000-4000-8000-000000000000')))
        .status,
    ).toBe(201);
  });

  it('refuses a permission of an unknown API (404) or one its API does not define (400), assigning none of the batch', async () => {
    const e = await start({ users: ['auth0|1'] });
    const batch = {
      permissions: [
        { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
        { resource_server_identifier: 'https://nope.example/', permission_name: 'read' },
      ],
    };
    expect(await send(e, 'POST', '/users/auth0%7C1/permissions', batch)).toMatchObject({
      status: 404,
      body: { errorCode: 'inexistent_resource_server' },
    });
    expect(
      await send(e, 'POST', '/users/auth0%7C1/permissions', grant('https://api.example.com/', 'read:report')),
    ).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_permission' },
    });
    expect(e.snapshot().userPermissions).toEqual({});
  });

  it('starts with the defaults, takes a seed part in their place, and goes back to them on reset', async () => {
    const e = await start({ seed: referenceSeed({ actions: ['act-1'] }) });
    expect(e.snapshot().actions!.map((a) => a.id)).toEqual(['act-1']);
    // Parts the seed left out are the defaults: the examples' applications are there.
    expect(e.snapshot().clients!.map((c) => c.client_id)).toContain('Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC');
    e.reset();
    expect(e.snapshot().actions!.map((a) => a.id)).toContain('3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90');
    expect(() => e.replaceState({ actions: [{ name: 'no id' }] })).toThrow(/actions: an action is malformed/);
  });

  it('keeps its reference data in the data file, and takes the defaults for a part the file leaves out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-refs-'));
    try {
      const file = join(dir, 'tenant.json');
      writeFileSync(
        file,
        JSON.stringify({
          version: 1,
          ...referenceSeed({ clients: ['only-app'] }),
        }),
      );
      const e = await start({ dataFile: file });
      expect(e.snapshot().clients!.map((c) => c.client_id)).toEqual(['only-app']);
      expect(e.snapshot().resourceServers!.length).toBeGreaterThan(0);
      await send(e, 'POST', '/rate-limit-policies', {
        resource: 'oauth_authentication_api',
        consumer: 'client',
        consumer_selector: 'default',
        configuration: { action: 'allow' },
      });
      await e.stop();
      emu = undefined;
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      expect(saved.clients).toEqual([
        {
          client_id: 'only-app',
          name: 'Application only-app',
          app_type: 'regular_web',
          is_first_party: true,
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a seed together with a data file', async () => {
    await expect(
      startEmulator({ api: 'full', seed: {}, dataFile: join(tmpdir(), 'x.json') }),
    ).rejects.toThrow(/seed and dataFile exclude each other/);
  });
});

describe('under API profile spec, nothing of it', () => {
  it('serves no reference list, holds none, and refuses none of the bodies full would', async () => {
    const e = await start({ api: 'spec', users: ['auth0|1'] });
    for (const path of ['/clients', '/actions/actions', '/resource-servers']) {
      expect(await send(e, 'GET', path)).toMatchObject({ status: 404, body: { errorCode: 'not_found' } });
    }
    expect(Object.keys(e.snapshot()).sort()).toEqual(Object.keys(emptyTenant()).sort());
    expect((await send(e, 'POST', '/token-exchange-profiles', profileWith('act_made_up'))).status).toBe(201);
    expect(
      (await send(e, 'POST', '/users/auth0%7C1/permissions', grant('https://made.up/', 'x'))).status,
    ).toBe(201);
  });

  it('refuses a seed of reference data, saying it is held under full only', async () => {
    await expect(startEmulator({ seed: referenceSeed({ clients: ['a'] }) })).rejects.toThrow(
      /Unknown field\(s\) in the state: clients \(clients: reference data, held under API profile full only\)/,
    );
  });
});
