/**
 * End to end against answers that carry more than tenantform knows (API
 * profile full): the emulator answers as the real service does (a user's
 * permission items with description, resource_server_name and sources, the
 * applications with tenant), and a proxy on 127.0.0.1 in front of it adds a
 * field to every object of every JSON answer, at every level, and lists every
 * array's items the other way round, as a later release of the service might.
 * export, validate, plan, plan --refresh, refresh and import succeed through
 * it, nothing unknown reaches the files or the state, and the next plan is
 * empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { defaultStateFile, postToEmulator } from './helpers/e2e.js';
import { LATER_KINDS_ZERO } from './helpers/kind-examples.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

const MARK = 'added_by_a_later_release';

let emulator: EmulatorHandle;
let proxy: Server;
let proxyUrl: string;
let decorated = 0;
let dir: string;
let cleanup: () => void;

/** `value` with an unknown field (itself of every JSON type) in every object, and every array reversed. */
function decorate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decorate).reverse();
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { [MARK]: { n: 1, s: 'x', b: true, z: null, a: [{ deep: 1 }] } };
  for (const [key, inner] of Object.entries(value)) out[key] = decorate(inner);
  return out;
}

/** A proxy to the emulator that decorates every JSON answer (and passes everything else as it is). */
function startProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          let text = await answer.text();
          const type = answer.headers.get('content-type') ?? '';
          if (text !== '' && type.startsWith('application/json') && answer.status < 300) {
            text = JSON.stringify(decorate(JSON.parse(text)));
            decorated++;
          }
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (name.startsWith('x-ratelimit') || name === 'content-type' || name === 'date')
              out[name] = value;
          });
          res.writeHead(answer.status, out);
          res.end(text);
        })
        .catch(() => res.destroy());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function cli(...args: string[]) {
  return runCli(args, { cwd: dir, env: { TENANTFORM_TOKEN: emulator.token } });
}

const api = () => ['--api', 'full', '--base-url', `${proxyUrl}/api/v2`];

const post = (path: string, body: unknown) => postToEmulator(emulator, path, body);

const policy = (selector: string, configuration: unknown) => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration,
});

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
  decorated = 0;
  emulator = await startEmulator({
    api: 'full',
    users: ['auth0|alice'],
    seed: referenceSeed({
      clients: ['app1'],
      actions: ['act-1'],
      permissions: [
        ['https://api.example.com/', 'read:reports'],
        ['https://api.example.com/', 'write:reports'],
        ['https://api.other.example/', 'read:reports'],
      ],
    }),
  });
  proxy = await startProxy(emulator.origin);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  await post('/rate-limit-policies', policy('default', { action: 'block', limit: 100 }));
  await post(
    '/rate-limit-policies',
    policy('client_id:app1', { action: 'redirect', limit: 5, redirect_uri: 'https://example.com/slow' }),
  );
  await post('/rate-limit-policies', policy('third_party_clients', { action: 'allow' }));
  await post('/token-exchange-profiles', {
    name: 'Partner',
    subject_token_type: 'urn:partner:token',
    action_id: 'act-1',
    type: 'custom_authentication',
  });
  await post('/users/auth0%7Calice/permissions', {
    permissions: [
      { resource_server_identifier: 'https://api.other.example/', permission_name: 'read:reports' },
      { resource_server_identifier: 'https://api.example.com/', permission_name: 'write:reports' },
      { resource_server_identifier: 'https://api.example.com/', permission_name: 'read:reports' },
    ],
  });
});

afterEach(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await emulator.stop();
  cleanup();
});

/** The config files export wrote (the copied schemas aside: they name the fields they allow). */
function configText(root: string): string {
  return readdirSync(root)
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => readFileSync(join(root, name), 'utf8'))
    .join('\n');
}

describe('reading answers with fields tenantform does not know, end to end', () => {
  it('exports, plans, refreshes and imports through them, and the next plan is empty', async () => {
    const exported = await cli('export', 'tenant', '--user', 'auth0|alice', ...api());
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(
      new RegExp(
        `Exported 3 rate limit policies, 1 token exchange profile${LATER_KINDS_ZERO} and 3 permissions of 1 user`,
      ),
    );
    expect(decorated).toBeGreaterThan(0);
    const files = configText(join(dir, 'tenant'));
    expect(files).not.toContain(MARK);
    expect(files).not.toMatch(/sources|resource_server_name|description/);
    expect((await cli('validate', 'tenant')).code).toBe(0);

    const plan = await cli('plan', 'tenant', '--detailed-exitcode', ...api());
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    const refreshed = await cli('plan', 'tenant', '--refresh', '--detailed-exitcode', ...api());
    expect(refreshed.stdout).toContain('Refreshed from the tenant: no drift');
    expect(refreshed.code).toBe(0);
    const refresh = await cli('refresh', 'tenant', ...api());
    expect(refresh.code).toBe(0);

    const address = 'rate_limit_policy["oauth_authentication_api","client","client_id:app1"]';
    expect((await cli('state', 'rm', address, 'tenant')).code).toBe(0);
    const imported = await cli('import', address, '--config', 'tenant', ...api());
    expect(imported.code).toBe(0);
    expect(readFileSync(defaultStateFile(join(dir, 'tenant'), `${proxyUrl}/api/v2`), 'utf8')).not.toContain(
      MARK,
    );

    const after = await cli('plan', 'tenant', '--refresh', '--detailed-exitcode', ...api());
    expect(after.stdout).toContain('No changes');
    expect(after.code).toBe(0);
  });
});
