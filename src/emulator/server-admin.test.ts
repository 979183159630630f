import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyTenant } from '../../test/helpers/kind-examples.js';
import { matchesSchema } from '../schemas/index.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle } from './types.js';

let emu: EmulatorHandle;

beforeEach(async () => {
  emu = await startEmulator({ rateLimit: { perSecond: 1 } });
});
afterEach(async () => {
  await emu.stop();
});

function admin(path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${emu.origin}/__emulator${path}`, init);
}

const key = () => ({ 'x-emulator-admin-key': emu.adminKey });

async function seed(): Promise<void> {
  const res = await fetch(`${emu.baseUrl}/users/auth0%7C7/permissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      permissions: [{ resource_server_identifier: 'https://api', permission_name: 'read:x' }],
    }),
  });
  expect(res.status).toBe(201);
}

describe('admin API', () => {
  it('lists the tenant with the admin key', async () => {
    await seed();
    const res = await admin('/state', { headers: key() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(emu.snapshot());
    expect(emu.snapshot().userPermissions).toHaveProperty(['auth0|7']);
  });

  it.each([
    ['no credentials', {}],
    ['a tenant bearer token', { authorization: 'Bearer TOKEN' }],
    ['a wrong admin key', { 'x-emulator-admin-key': 'wrong' }],
  ])('answers 401 with %s', async (_name, headers) => {
    const resolved = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v.replace('TOKEN', emu.token)]),
    );
    const res = await admin('/state', { headers: resolved });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(matchesSchema('error', body)).toBe(true);
    expect(JSON.stringify(body)).not.toContain(emu.token);
  });

  it('resets the tenant and the counters', async () => {
    await seed();
    const res = await admin('/reset', { method: 'POST', headers: key() });
    expect(res.status).toBe(204);
    expect(emu.snapshot()).toEqual(emptyTenant());
    expect(emu.requestCount()).toBe(0);
  });

  it('reports stats and is neither rate limited nor counted', async () => {
    await seed();
    for (let i = 0; i < 3; i++) expect((await admin('/stats', { headers: key() })).status).toBe(200);
    const res = await admin('/stats', { headers: key() });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    const stats = (await res.json()) as Record<string, unknown>;
    expect(stats).toEqual({
      requests: 1,
      byStatus: { '201': 1 },
      byRoute: { 'POST /api/v2/users/{id}/permissions': 1 },
      firstRequestAt: expect.any(Number),
      lastRequestAt: stats.firstRequestAt,
    });
  });

  it.each([
    ['/nothing', 'GET', 404],
    ['/state', 'POST', 405],
    ['/reset', 'GET', 405],
  ])('answers %s %s with %i', async (path, method, status) => {
    const res = await admin(path, { method, headers: key() });
    expect(res.status).toBe(status);
  });

  it('resets programmatically too', async () => {
    await seed();
    emu.reset();
    expect(emu.snapshot().userPermissions).toEqual({});
  });
});
