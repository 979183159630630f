/**
 * `tenantform emulator --tls` as real clients meet it: separate processes that
 * trust its CA through NODE_EXTRA_CA_CERTS alone (no option of theirs names
 * it): tenantform with `--domain 127.0.0.1:PORT`, and the official auth0 SDK
 * constructed with only `domain`, `clientId` and `clientSecret` (its own
 * fetch, its own token request).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { tempDir } from './helpers/cli.js';
import { applyOnePolicy, runNode, type ProcessRun } from './helpers/built-cli.js';

let emulator: EmulatorHandle;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  emulator = await startEmulator({
    tls: true,
    api: 'full',
    seed: referenceSeed({ permissions: [['https://api.example.com', 'read:x']] }),
  });
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await emulator.stop();
  cleanup();
});

/** Runs node with `args` in the repository, trusting the emulator's CA by environment only. */
function node(args: string[], env: Record<string, string> = {}): Promise<ProcessRun> {
  return runNode(args, { NODE_EXTRA_CA_CERTS: emulator.caFile!, ...env });
}

const domain = () => `127.0.0.1:${emulator.port}`;

describe('emulator --tls', () => {
  it('is a target for tenantform --domain with the CA in NODE_EXTRA_CA_CERTS', async () => {
    const run = await applyOnePolicy(dir, domain(), {
      NODE_EXTRA_CA_CERTS: emulator.caFile!,
      TENANTFORM_CLIENT_ID: emulator.clientId,
      TENANTFORM_CLIENT_SECRET: emulator.clientSecret,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Target: https://${domain()}/api/v2`);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(1);
  });

  it('is a target for the official auth0 SDK constructed with only domain and client credentials: create, list past the first page, get', async () => {
    const script = `
      import { ManagementClient } from 'auth0';
      const [domain, clientId, clientSecret] = process.argv.slice(1);
      const sdk = new ManagementClient({ domain, clientId, clientSecret });
      const ids = [];
      for (const selector of ['default', 'third_party_clients', 'client_id:a']) {
        const created = await sdk.rateLimitPolicies.create({
          resource: 'oauth_authentication_api', consumer: 'client', consumer_selector: selector,
          configuration: { action: 'block', limit: 10 },
        });
        ids.push(created.id);
      }
      await sdk.users.permissions.create('auth0|1', {
        permissions: [{ resource_server_identifier: 'https://api.example.com', permission_name: 'read:x' }],
      });
      const listed = [];
      for await (const p of await sdk.rateLimitPolicies.list({ take: 2 })) listed.push(p.id);
      const got = await sdk.rateLimitPolicies.get(ids[1]);
      const permissions = (await sdk.users.permissions.list('auth0|1')).data;
      process.stdout.write(JSON.stringify({ ids, listed, got: got.id, permissions: permissions.length }));
    `;
    const run = await node([
      '--input-type=module',
      '-e',
      script,
      domain(),
      emulator.clientId,
      emulator.clientSecret,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      ids: string[];
      listed: string[];
      got: string;
      permissions: number;
    };
    expect(emulator.snapshot().rateLimitPolicies.map((p) => p.id)).toEqual(out.ids);
    expect(out).toMatchObject({ listed: out.ids, got: out.ids[1], permissions: 1 });
    expect(emulator.stats().byRoute['GET /api/v2/rate-limit-policies']).toBe(2);
  });
});
