import { afterEach, describe, expect, it } from 'vitest';
import { startTenants, variablePrefix, type TenantHandle } from './tenants.js';

let tenants: TenantHandle[] = [];
afterEach(async () => {
  await Promise.all(tenants.map((t) => t.stop()));
  tenants = [];
});

const create = (t: TenantHandle, token: string, selector = 'default') =>
  fetch(`${t.baseUrl}/rate-limit-policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: selector,
      configuration: { action: 'block', limit: 1 },
    }),
  });

describe('variablePrefix', () => {
  it('turns a name into a variable prefix', () => expect(variablePrefix('eu-west.1')).toBe('EU_WEST_1'));
});

describe('startTenants', () => {
  it('gives each tenant its own base URL, data and credentials', async () => {
    tenants = await startTenants(['a', 'b'], { host: '127.0.0.1' });
    const [a, b] = tenants as [TenantHandle, TenantHandle];
    expect(a.baseUrl).not.toBe(b.baseUrl);
    expect(a.token).not.toBe(b.token);
    expect((await create(a, a.token)).status).toBe(201);
    // The same identity on b is not a conflict: b has its own data.
    expect((await create(b, b.token)).status).toBe(201);
    // One tenant's token is refused by another.
    expect((await create(b, a.token, 'third_party_clients')).status).toBe(401);
    expect(a.snapshot().rateLimitPolicies).toHaveLength(1);
    expect(b.snapshot().rateLimitPolicies).toHaveLength(1);
  });

  it('gives each tenant its own rate-limit bucket', async () => {
    tenants = await startTenants(['a', 'b'], { rateLimit: { perSecond: 1, burst: 1 }, now: () => 1_000_000 });
    const [a, b] = tenants as [TenantHandle, TenantHandle];
    expect((await create(a, a.token, 'default')).status).toBe(201);
    expect((await create(a, a.token, 'cimd_clients')).status).toBe(429);
    expect((await create(b, b.token, 'cimd_clients')).status).toBe(201);
  });
});
