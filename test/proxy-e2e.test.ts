/**
 * tenantform behind a corporate forward proxy, end to end over real sockets
 * on 127.0.0.1: the `proxy` package (an HTTP proxy with CONNECT) in front of
 * the emulator. HTTPS goes through a CONNECT tunnel (the emulator with --tls,
 * trusted through NODE_EXTRA_CA_CERTS alone, so those runs are separate
 * processes); HTTP is forwarded. NO_PROXY bypasses the proxy; a refusal
 * (407) and an unreachable proxy end with one clear line; the credentials in
 * the proxy URL never appear in any output, --debug included.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProxy, type ProxyServer } from 'proxy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';
import { runNode } from './helpers/built-cli.js';

const USER = 'ci-runner';
const PASSWORD = 'Pr0xy-s3cret-42';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

const CONFIG =
  'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 10 }\n';

interface Proxy {
  url: (password?: string) => string;
  /** CONNECT targets and forwarded request URLs, in order. */
  seen: string[];
  close: () => Promise<void>;
}

async function startProxy(): Promise<Proxy> {
  const seen: string[] = [];
  const server: ProxyServer = createProxy(createServer());
  server.authenticate = (req: IncomingMessage) => req.headers['proxy-authorization'] === `Basic ${BASIC}`;
  server.on('connect', (req: IncomingMessage) => seen.push(`CONNECT ${req.url}`));
  server.on('request', (req: IncomingMessage) => seen.push(`${req.method} ${req.url}`));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (password = PASSWORD) => `http://${USER}:${password}@127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A port nothing listens on: one that was just given and closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** tenantform in its own process (NODE_EXTRA_CA_CERTS is read at start-up), with only `env`; its output and errors. */
async function tenantform(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const run = await runNode(['bin/tenantform.js', ...args], env, 90_000);
  return { code: run.code, out: run.stdout + run.stderr };
}

function expectNoProxySecret(out: string): void {
  expect(out).not.toContain(PASSWORD);
  expect(out).not.toContain(BASIC);
  expect(out).not.toContain(encodeURIComponent(PASSWORD));
}

let proxy: Proxy;
let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  proxy = await startProxy();
  ({ dir, cleanup } = tempDir());
  writeFileSync(join(dir, 'tenant.yaml'), CONFIG);
});
afterEach(async () => {
  await proxy.close();
  cleanup();
});

describe('through an HTTPS proxy (CONNECT) to the emulator with --tls', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator({ tls: true, api: 'full' });
  });
  afterEach(() => emulator.stop());

  it('applies and plans with --refresh through the tunnel, the token request too, and never shows the proxy credentials', async () => {
    const env = {
      NODE_EXTRA_CA_CERTS: emulator.caFile!,
      HTTPS_PROXY: proxy.url(),
      TENANTFORM_CLIENT_ID: emulator.clientId,
      TENANTFORM_CLIENT_SECRET: emulator.clientSecret,
    };
    const target = ['--domain', `127.0.0.1:${emulator.port}`, '--state', join(dir, 'state.json')];
    const apply = await tenantform(
      ['apply', join(dir, 'tenant.yaml'), '--auto-approve', '--debug', ...target],
      env,
    );
    expect(apply.out).toContain('Apply complete');
    expect(apply.code).toBe(0);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(1);
    expect(proxy.seen).toContain(`CONNECT 127.0.0.1:${emulator.port}`);
    expect(apply.out).toContain(`through http://[REDACTED]@127.0.0.1:`);

    const plan = await tenantform(
      ['plan', join(dir, 'tenant.yaml'), '--refresh', '--api', 'full', '--debug', ...target],
      env,
    );
    expect(plan.code).toBe(0);
    expect(plan.out).toContain('No changes');
    expect(emulator.stats().byRoute['GET /api/v2/rate-limit-policies']).toBeGreaterThan(0);
    expectNoProxySecret(apply.out + plan.out);
  });
});

describe('through an HTTP proxy to the emulator over plain HTTP', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator({ api: 'full' });
  });
  afterEach(() => emulator.stop());

  const run = (args: string[], env: Record<string, string>) =>
    runCli([...args, '--base-url', `http://127.0.0.1:${emulator.port}`, '--state', join(dir, 'state.json')], {
      cwd: dir,
      env: {
        TENANTFORM_CLIENT_ID: emulator.clientId,
        TENANTFORM_CLIENT_SECRET: emulator.clientSecret,
        ...env,
      },
    });

  it('forwards every request, the token request first, and a plan --refresh reads through it', async () => {
    const apply = await run(['apply', 'tenant.yaml', '--auto-approve', '--debug'], {
      http_proxy: proxy.url(),
    });
    expect(apply.code).toBe(0);
    expect(proxy.seen[0]).toBe(`POST http://127.0.0.1:${emulator.port}/oauth/token`);
    expect(proxy.seen).toContain(`POST http://127.0.0.1:${emulator.port}/api/v2/rate-limit-policies`);
    const plan = await run(['plan', 'tenant.yaml', '--refresh', '--api', 'full'], {
      HTTP_PROXY: proxy.url(),
    });
    expect(plan.code).toBe(0);
    const base = `http://127.0.0.1:${emulator.port}/api/v2`;
    expect(proxy.seen.filter((r) => r.startsWith(`GET ${base}/rate-limit-policies`)).length).toBeGreaterThan(
      0,
    );
    expectNoProxySecret(apply.stdout + apply.stderr + plan.stdout + plan.stderr);
  });

  it.each([
    ['NO_PROXY', '127.0.0.1'],
    ['no_proxy', 'localhost, .example.com,127.0.0.1'],
  ])('%s naming the host bypasses the proxy; naming others, it does not', async (name, value) => {
    const plan = ['plan', 'tenant.yaml', '--refresh', '--api', 'full'];
    const others = await run(plan, { HTTP_PROXY: proxy.url(), [name]: 'example.com,localhost' });
    expect(others.code).toBe(0);
    expect(proxy.seen.length).toBeGreaterThan(0);
    proxy.seen.length = 0;
    const bypassed = await run(plan, { HTTP_PROXY: proxy.url(), [name]: value });
    expect(bypassed.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that refuses the credentials (407) ends the run at once with one line that says so, without them', async () => {
    const apply = await run(['apply', 'tenant.yaml', '--auto-approve', '--debug'], {
      HTTP_PROXY: proxy.url('wrong-password'),
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(
      /Cannot reach the tenant at http:\/\/127\.0\.0\.1:\d+\/api\/v2 through the proxy http:\/\/\[REDACTED\]@127\.0\.0\.1:\d+ \(HTTP_PROXY\): the proxy asks for credentials \(407 Proxy Authentication Required\)/,
    );
    expect(proxy.seen).toHaveLength(1);
    expect(apply.stdout + apply.stderr).not.toContain('wrong-password');
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(0);
  });

  it('an unreachable proxy is named as such', async () => {
    const port = await closedPort();
    const apply = await run(['apply', 'tenant.yaml', '--auto-approve'], {
      HTTP_PROXY: `http://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      `Cannot reach the proxy http://[REDACTED]@127.0.0.1:${port} (HTTP_PROXY) for the tenant at http://127.0.0.1:${emulator.port}/api/v2: connection refused, ECONNREFUSED`,
    );
    expectNoProxySecret(apply.stdout + apply.stderr);
  });

  it('a proxy URL that is not one is refused before any request, naming the variable', async () => {
    const apply = await run(['apply', 'tenant.yaml', '--auto-approve'], {
      HTTPS_PROXY: `socks4://${USER}:${PASSWORD}@127.0.0.1:1080`,
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'HTTPS_PROXY names a socks4 proxy (socks4://[REDACTED]@127.0.0.1:1080): only http:// and https:// proxies are supported',
    );
    expectNoProxySecret(apply.stderr);
    expect(emulator.stats().requests).toBe(0);
  });
});
