import { existsSync, readFileSync } from 'node:fs';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from './server.js';
import { startTenants } from './tenants.js';
import type { EmulatorHandle } from './types.js';

const running: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

const grants = { permissions: [{ resource_server_identifier: 'https://api', permission_name: 'read:x' }] };

function assign(e: EmulatorHandle, dispatcher?: Agent) {
  return undiciFetch(`${e.baseUrl}/users/auth0%7C1/permissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${e.token}` },
    body: JSON.stringify(grants),
    ...(dispatcher ? { dispatcher } : {}),
  });
}

describe('--tls', () => {
  it('serves HTTPS to a client that trusts the CA file, and nothing to one that does not', async () => {
    const e = await startEmulator({ tls: true });
    running.push(e);
    expect(e.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    expect(readFileSync(e.caFile!, 'utf8')).toBe(e.caPem);
    const trusting = new Agent({ connect: { ca: readFileSync(e.caFile!, 'utf8') } });
    try {
      const res = await assign(e, trusting);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      // A client that reached it as https://localhost:PORT asks for that audience.
      const token = await request(`${e.origin}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: `localhost:${e.port}` },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: e.clientId,
          client_secret: e.clientSecret,
          audience: `https://localhost:${e.port}/api/v2/`,
        }),
        dispatcher: trusting,
      });
      expect(token.statusCode).toBe(200);
      await token.body.dump();
    } finally {
      await trusting.close();
    }
    await expect(assign(e)).rejects.toThrow();
    expect(e.snapshot().userPermissions['auth0|1']).toHaveLength(1);
  });

  it('removes the CA file on stop', async () => {
    const e = await startEmulator({ tls: true });
    await e.stop();
    expect(existsSync(e.caFile!)).toBe(false);
    await e.stop();
  });

  it('gives several tenants one CA file, kept until the last one stops', async () => {
    const [a, b] = await startTenants(['a', 'b'], { tls: true });
    running.push(b!);
    expect(a!.caFile).toBe(b!.caFile);
    const trusting = new Agent({ connect: { ca: a!.caPem! } });
    try {
      expect((await assign(a!, trusting)).status).toBe(201);
      expect((await assign(b!, trusting)).status).toBe(201);
    } finally {
      await trusting.close();
    }
    await a!.stop();
    expect(existsSync(b!.caFile!)).toBe(true);
  });
});
