import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyTenant } from '../../test/helpers/kind-examples.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, RateLimitPolicy } from './types.js';

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

function putState(e: EmulatorHandle, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${e.origin}/__emulator/state`, {
    method: 'PUT',
    headers: { 'x-emulator-admin-key': e.adminKey, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'block', limit: 100 },
};
const profile = {
  name: 'Partner SSO',
  subject_token_type: 'urn:partner:token',
  action_id: 'a8f1c2d4-7e9b-4c3a-9f0e-1b2c3d4e5f60',
  type: 'custom_authentication',
};

describe('PUT /__emulator/state (seeding, as someone else)', () => {
  it('replaces the tenant, generating ids and timestamps that were left out', async () => {
    emu = await startEmulator({ api: 'full', now: () => NOW });
    const res = await putState(emu, {
      rateLimitPolicies: [policy],
      tokenExchangeProfiles: [profile],
      userPermissions: {
        'auth0|1': [{ resource_server_identifier: 'https://api/', permission_name: 'read:x' }],
      },
    });
    expect(res.status).toBe(200);
    const state = await res.json();
    expect(state).toEqual(emu.snapshot());
    const at = new Date(NOW).toISOString();
    expect(emu.snapshot().rateLimitPolicies).toEqual([
      { ...policy, id: expect.stringMatching(/^rlp_[A-Za-z0-9]{21}$/), created_at: at, updated_at: at },
    ]);
    expect(emu.snapshot().tokenExchangeProfiles[0]!.id).toMatch(/^tep_[A-Za-z0-9]{16}$/);
    // What was seeded is what the API sees: listed, and a create of the same identity is a 409.
    const listed = await fetch(`${emu.baseUrl}/rate-limit-policies`, {
      headers: { authorization: `Bearer ${emu.token}` },
    });
    expect(await listed.json()).toEqual({ rate_limit_policies: emu.snapshot().rateLimitPolicies });
    const again = await fetch(`${emu.baseUrl}/rate-limit-policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(policy),
    });
    expect(again.status).toBe(409);
    await again.arrayBuffer();
  });

  it('changes a resource in place when its id is given (drift), and drops what the state leaves out', async () => {
    emu = await startEmulator({});
    const created = (await (
      await fetch(`${emu.baseUrl}/rate-limit-policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(policy),
      })
    ).json()) as RateLimitPolicy;
    const changed = {
      ...created,
      configuration: { action: 'log', limit: 5 },
      updated_at: '2026-02-01T00:00:00.000Z',
    };
    expect((await putState(emu, { rateLimitPolicies: [changed] })).status).toBe(200);
    expect(emu.snapshot().rateLimitPolicies).toEqual([changed]);
    expect((await putState(emu, {})).status).toBe(200);
    expect(emu.snapshot()).toEqual(emptyTenant());
  });

  it('writes the seeded tenant to the data file', async () => {
    const dataFile = join(tmpdir(), `tenantform-seed-${process.pid}-${Date.now()}.json`);
    emu = await startEmulator({ dataFile, persistDelayMs: 0 });
    expect((await putState(emu, { tokenExchangeProfiles: [profile] })).status).toBe(200);
    await emu.stop();
    const saved = JSON.parse(await readFile(dataFile, 'utf8')) as { tokenExchangeProfiles: unknown[] };
    expect(saved.tokenExchangeProfiles).toEqual([expect.objectContaining(profile)]);
    emu = undefined;
  });

  it.each([
    ['two policies with one identity', { rateLimitPolicies: [policy, policy] }, 'is listed twice'],
    [
      'a malformed policy',
      { rateLimitPolicies: [{ ...policy, consumer: 7 }] },
      'a rate limit policy is malformed',
    ],
    [
      'a profile without action_id',
      { tokenExchangeProfiles: [{ ...profile, action_id: undefined }] },
      'malformed',
    ],
    ['an unknown field', { policies: [] }, 'Unknown field(s) in the state: policies'],
    ['not an object', [], 'must be a JSON object'],
    ['not JSON', '{', 'JSON'],
  ])('refuses %s with a 400 and leaves the tenant as it was', async (_name, body, message) => {
    emu = await startEmulator({});
    await putState(emu, { tokenExchangeProfiles: [profile] });
    const before = emu.snapshot();
    const res = await putState(emu, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(message);
    expect(emu.snapshot()).toEqual(before);
  });

  it('needs the admin key and JSON, and answers 405 naming GET and PUT for other methods', async () => {
    emu = await startEmulator({});
    expect((await putState(emu, {}, { 'x-emulator-admin-key': 'wrong' })).status).toBe(401);
    expect((await putState(emu, {}, { 'content-type': 'text/plain' })).status).toBe(415);
    const res = await fetch(`${emu.origin}/__emulator/state`, {
      method: 'DELETE',
      headers: { 'x-emulator-admin-key': emu.adminKey },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PUT');
    await res.arrayBuffer();
  });

  it('replaces the state programmatically too', async () => {
    emu = await startEmulator({});
    expect(emu.replaceState({ rateLimitPolicies: [policy] }).rateLimitPolicies).toHaveLength(1);
    expect(() => emu!.replaceState({ rateLimitPolicies: [{}] })).toThrow(/malformed/);
  });
});
