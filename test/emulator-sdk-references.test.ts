/**
 * The official auth0 SDK (v7 ManagementClient), unchanged, against the
 * emulator's reference lists (API profile full): clients.list,
 * actions.list and resourceServers.list parse its answers and page through
 * them, and the refusals of bodies naming what the tenant lacks arrive as the
 * error types the SDK declares for those operations (tokenExchangeProfiles
 * .create: BadRequestError; users.permissions.create: NotFoundError for an
 * unknown API, BadRequestError for an unknown permission).
 */
import type { ManagementClient } from 'auth0';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { sdkClient, sdkFailure } from './helpers/sdk.js';

const USER = 'auth0|5f7c8ec7c33c6c004bbafe82';
let emu: EmulatorHandle;

beforeEach(async () => {
  emu = await startEmulator({ api: 'full', users: [USER] });
});
afterEach(async () => {
  await emu.stop();
});

const sdk = (): ManagementClient => sdkClient(emu, { token: emu.token });

const profile = (action_id: string) => ({
  name: 'Partner tokens',
  subject_token_type: 'urn:partner:token',
  action_id,
  type: 'custom_authentication' as const,
});

describe('official auth0 SDK against the reference lists of emulator --api full', () => {
  it('clients.list pages through the applications, with only the fields asked for', async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `app${i}`);
    emu.replaceState(referenceSeed({ clients: ids }));
    const seen: string[] = [];
    let page = await sdk().clients.list({
      fields: 'client_id,name',
      include_fields: true,
      per_page: 3,
      include_totals: true,
    });
    for (;;) {
      seen.push(...page.data.map((c) => c.client_id!));
      // The fields asked for, and the tenant the service adds to every item (observed).
      expect(page.data.every((c) => Object.keys(c).sort().join() === 'client_id,name,tenant')).toBe(true);
      if (!page.hasNextPage()) break;
      page = await page.getNextPage();
    }
    expect(seen).toEqual(ids);
  });

  it('actions.list filters by trigger and deployment, and pages by its total', async () => {
    const page = await sdk().actions.list({
      triggerId: 'custom-token-exchange',
      deployed: true,
      per_page: 2,
    });
    const all = [];
    for await (const action of page) all.push(action);
    expect(all.length).toBeGreaterThan(2);
    for (const action of all) {
      expect(action.supported_triggers!.map((t) => t.id)).toContain('custom-token-exchange');
      expect(action.deployed_version).toBeDefined();
    }
  });

  it('resourceServers.list reads the APIs named by identifiers', async () => {
    const page = await sdk().resourceServers.list({
      identifiers: ['https://api.example.com/', 'https://api.acme.example/orders'],
      include_totals: true,
    });
    expect(page.data.map((r) => r.identifier).sort()).toEqual([
      'https://api.acme.example/orders',
      'https://api.example.com/',
    ]);
    expect(
      page.data.find((r) => r.identifier === 'https://api.example.com/')!.scopes!.map((s) => s.value),
    ).toContain('read:reports');
  });

  it.each([
    ['an unknown Action', '11111111-2222-4333-8444-555555555555'],
    ['an Action bound to another trigger', '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a'],
    ['an Action not deployed', '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d'],
  ])('tokenExchangeProfiles.create with %s: BadRequestError, nothing created', async (_case, id) => {
    const error = await sdkFailure(sdk().tokenExchangeProfiles.create(profile(id)));
    expect(error.statusCode).toBe(400);
    expect(error.constructor.name).toBe('BadRequestError');
    expect(emu.snapshot().tokenExchangeProfiles).toEqual([]);
    await sdk().tokenExchangeProfiles.create(profile('00000000-0000-4000-8000-000000000000'));
    expect(emu.snapshot().tokenExchangeProfiles).toHaveLength(1);
  });

  it('users.permissions.create: NotFoundError for an unknown API, BadRequestError for an unknown permission', async () => {
    const grant = (resource_server_identifier: string, permission_name: string) => ({
      permissions: [{ resource_server_identifier, permission_name }],
    });
    const unknownApi = await sdkFailure(
      sdk().users.permissions.create(USER, grant('https://nope.example/', 'read')),
    );
    expect([unknownApi.statusCode, unknownApi.constructor.name]).toEqual([404, 'NotFoundError']);
    const unknownName = await sdkFailure(
      sdk().users.permissions.create(USER, grant('https://api.example.com/', 'read:report')),
    );
    expect([unknownName.statusCode, unknownName.constructor.name]).toEqual([400, 'BadRequestError']);
    expect(emu.snapshot().userPermissions).toEqual({});
    await sdk().users.permissions.create(USER, grant('https://api.example.com/', 'read:reports'));
    expect(emu.snapshot().userPermissions[USER]).toHaveLength(1);
  });
});
