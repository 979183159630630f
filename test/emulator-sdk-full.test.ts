/**
 * The official auth0 SDK (v7 ManagementClient), unchanged, against the
 * emulator with API profile full: rateLimitPolicies.update,
 * tokenExchangeProfiles.update and .delete, users.permissions.delete, with
 * the statuses the SDK expects (404 and 409 as typed errors). As in
 * emulator-independent-client.test.ts, the SDK's fetch only sends each
 * request unchanged to the emulator's origin (the SDK has no baseUrl option).
 */
import type { ManagementClient } from 'auth0';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { sdkClient, sdkFailure } from './helpers/sdk.js';

const USER = 'auth0|5f7c8ec7c33c6c004bbafe82';

let emu: EmulatorHandle;
let clock = Date.UTC(2026, 0, 1);

beforeEach(async () => {
  emu = await startEmulator({
    api: 'full',
    users: [USER],
    now: () => clock,
    seed: referenceSeed({
      actions: [profile.action_id],
      permissions: [
        ['https://api.example.com', 'read:x'],
        ['https://api.example.com', 'write:x'],
      ],
    }),
  });
});
afterEach(async () => {
  await emu.stop();
});

function sdk(): ManagementClient {
  return sdkClient(emu, { token: emu.token });
}

const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'block', limit: 100 },
} as const;
const profile = {
  name: 'Legacy IdP tokens',
  subject_token_type: 'urn:legacy-idp:access-token',
  action_id: 'a8f1c2d4-7e9b-4c3a-9f0e-1b2c3d4e5f60',
  type: 'custom_authentication',
} as const;
const grant = (name: string) => ({
  resource_server_identifier: 'https://api.example.com',
  permission_name: name,
});

describe('official auth0 SDK against the emulator --api full', () => {
  it('rateLimitPolicies.update changes the configuration in place and returns the policy', async () => {
    const client = sdk();
    const created = await client.rateLimitPolicies.create(policy);
    clock += 60_000;
    const updated = await client.rateLimitPolicies.update(created.id!, {
      configuration: { action: 'log', limit: 5 },
    });
    expect(updated).toMatchObject({ ...policy, id: created.id, configuration: { action: 'log', limit: 5 } });
    expect(updated.updated_at).toBe(new Date(clock).toISOString());
    expect(emu.snapshot().rateLimitPolicies).toEqual([updated]);
    expect(
      (
        await sdkFailure(
          client.rateLimitPolicies.update('rlp_unknown', { configuration: { action: 'allow' } }),
        )
      ).statusCode,
    ).toBe(404);
  });

  it('tokenExchangeProfiles.update renames, and answers 409 for another profile’s subject_token_type', async () => {
    const client = sdk();
    const first = await client.tokenExchangeProfiles.create(profile);
    await client.tokenExchangeProfiles.create({ ...profile, subject_token_type: 'urn:other:token' });
    await client.tokenExchangeProfiles.update(first.id!, { name: 'Renamed profile' });
    expect(emu.snapshot().tokenExchangeProfiles.find((p) => p.id === first.id)).toMatchObject({
      name: 'Renamed profile',
      subject_token_type: profile.subject_token_type,
    });
    const conflict = await sdkFailure(
      client.tokenExchangeProfiles.update(first.id!, { subject_token_type: 'urn:other:token' }),
    );
    expect(conflict.statusCode).toBe(409);
    expect(conflict.body).toMatchObject({ statusCode: 409, errorCode: 'token_exchange_profile_conflict' });
  });

  it('tokenExchangeProfiles.delete removes the profile; a second delete succeeds too (observed: 204)', async () => {
    const client = sdk();
    const made = await client.tokenExchangeProfiles.create(profile);
    await client.tokenExchangeProfiles.delete(made.id!);
    expect(emu.snapshot().tokenExchangeProfiles).toEqual([]);
    await client.tokenExchangeProfiles.delete(made.id!);
    expect((await sdkFailure(client.tokenExchangeProfiles.get(made.id!))).statusCode).toBe(404);
  });

  it('users.permissions.delete removes the named permissions, also ones the user lacks', async () => {
    const client = sdk();
    await client.users.permissions.create(USER, { permissions: [grant('read:x'), grant('write:x')] });
    await client.users.permissions.delete(USER, { permissions: [grant('read:x'), grant('never:had')] });
    expect(emu.snapshot().userPermissions).toEqual({ [USER]: [grant('write:x')] });
    expect(
      (await sdkFailure(client.users.permissions.delete('auth0|nobody', { permissions: [grant('read:x')] })))
        .statusCode,
    ).toBe(404);
  });
});

describe('the same SDK calls against the default emulator (spec)', () => {
  it('are refused as routes that do not exist: 405 or 404', async () => {
    const spec = await startEmulator({ users: [USER] });
    try {
      const client = sdkClient(spec, { token: spec.token });
      const created = await client.rateLimitPolicies.create(policy);
      const made = await client.tokenExchangeProfiles.create(profile);
      expect(
        (
          await sdkFailure(
            client.rateLimitPolicies.update(created.id!, { configuration: { action: 'allow' } }),
          )
        ).statusCode,
      ).toBe(405);
      expect(
        (await sdkFailure(client.tokenExchangeProfiles.update(made.id!, { name: 'Renamed' }))).statusCode,
      ).toBe(404);
      expect((await sdkFailure(client.tokenExchangeProfiles.delete(made.id!))).statusCode).toBe(404);
      expect(
        (await sdkFailure(client.users.permissions.delete(USER, { permissions: [grant('read:x')] })))
          .statusCode,
      ).toBe(405);
    } finally {
      await spec.stop();
    }
  });
});
