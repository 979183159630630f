/**
 * Issue 35, item 1: credentials go only to a tenant named outside the
 * repository. An environment of tenantform.yaml whose domain or base_url
 * names a host that neither the command line (--domain, --base-url) nor the
 * process environment (TENANTFORM_BASE_URL, TENANTFORM_DOMAIN, AUTH0_DOMAIN,
 * TENANTFORM_ALLOWED_HOSTS) confirms is refused by every command that sends
 * credentials, before anything reaches it: a 127.0.0.1 listener records every
 * connection, and none arrives. Confirmed, the same environment works.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { runCli, tempDir } from './helpers/cli.js';

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:web-app
    configuration: { action: block, limit: 100 }
`;

/** A listener on 127.0.0.1 that counts connections and keeps every byte sent to it. */
let listener: Server;
let connections = 0;
let received = '';
let port = 0;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-confirmed-');
  connections = 0;
  received = '';
});
afterEach(() => work.cleanup());

/** A project whose environments `prod` and `evil` use the process's credentials, at `baseUrl`. */
function project(baseUrl: string, key: 'base_url' | 'domain' = 'base_url'): void {
  mkdirSync(join(work.dir, 'prod'));
  writeFileSync(join(work.dir, 'prod', 'policies.yaml'), POLICY);
  writeFileSync(
    join(work.dir, 'tenantform.yaml'),
    'environments:\n' +
      ['prod', 'evil']
        .map(
          (name) =>
            `  ${name}:\n    paths: [prod]\n    api: full\n    ${key}: ${baseUrl}\n    state: { path: states/${name}.json }\n`,
        )
        .join(''),
  );
}

const SECRETS = {
  TENANTFORM_CLIENT_ID: 'ci-client',
  TENANTFORM_CLIENT_SECRET: 'ci-SECRET-value-7f3a',
};

const ADDRESS = 'rate_limit_policy["oauth_authentication_api","client","client_id:web-app"]';

/** Every command that sends credentials, for one environment of the project. */
const COMMANDS: [string, string[]][] = [
  ['validate --live', ['validate', '.', '--env', 'evil', '--live']],
  ['plan --refresh', ['plan', '.', '--env', 'evil', '--refresh']],
  ['refresh', ['refresh', '.', '--env', 'evil']],
  ['apply', ['apply', '.', '--env', 'evil', '--auto-approve']],
  ['apply --refresh', ['apply', '.', '--env', 'evil', '--auto-approve', '--refresh']],
  ['import (looked up)', ['import', ADDRESS, '--config', '.', '--env', 'evil']],
  ['explain --all-clients', ['explain', '.', '--env', 'evil', '--all-clients']],
  ['plan --all-envs --refresh (fleet)', ['plan', '.', '--all-envs', '--refresh']],
  ['apply --all-envs (fleet)', ['apply', '.', '--all-envs', '--auto-approve']],
];

describe('a host that only tenantform.yaml names', () => {
  it.each(COMMANDS)('%s: refused before anything reaches it', async (_name, args) => {
    project(`http://127.0.0.1:${port}`);
    // The process environment confirms another tenant (the CI's own), not this one.
    const env = { ...SECRETS, AUTH0_DOMAIN: 'prod.example.com', TENANTFORM_TOKEN: undefined };
    const run = await runCli(args, { cwd: work.dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `tenantform.yaml names the tenant at http://127.0.0.1:${port}/api/v2 (base_url), and nothing outside the repository confirms it`,
    );
    expect(run.stderr).toContain(`TENANTFORM_ALLOWED_HOSTS=127.0.0.1:${port}`);
    expect(run.stdout + run.stderr).not.toContain(SECRETS.TENANTFORM_CLIENT_SECRET);
    expect(connections).toBe(0);
    expect(received).toBe('');
  });

  it('apply of a saved plan made for that environment: refused before anything reaches it', async () => {
    project(`http://127.0.0.1:${port}`);
    const env = { ...SECRETS };
    const planned = await runCli(['plan', '.', '--env', 'evil', '--out', 'p.tfplan'], { cwd: work.dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const run = await runCli(['apply', 'p.tfplan', '--env', 'evil', '--auto-approve'], {
      cwd: work.dir,
      env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing outside the repository confirms it');
    expect(connections).toBe(0);
  });

  it('a domain: names its host in the hint, and a bearer token is held back as well', async () => {
    project('evil.example.net', 'domain');
    const run = await runCli(['plan', '.', '--env', 'evil', '--refresh'], {
      cwd: work.dir,
      env: { TENANTFORM_TOKEN: 'tok-SECRET', TENANTFORM_ALLOWED_HOSTS: 'prod.example.com, 127.0.0.1' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('names the tenant at https://evil.example.net/api/v2 (domain)');
    expect(run.stderr).toContain('TENANTFORM_ALLOWED_HOSTS=evil.example.net');
  });
});

describe('a tenant confirmed outside the repository', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator({ api: 'full', seed: referenceSeed({ clients: ['web-app'] }) });
  });
  afterEach(() => emulator.stop());

  const creds = () => ({
    TENANTFORM_CLIENT_ID: emulator.clientId,
    TENANTFORM_CLIENT_SECRET: emulator.clientSecret,
  });

  it.each([
    [
      'TENANTFORM_ALLOWED_HOSTS (host:port)',
      (url: URL) => ({ TENANTFORM_ALLOWED_HOSTS: `x.example.com,${url.host}` }),
    ],
    ['TENANTFORM_ALLOWED_HOSTS (URL)', (url: URL) => ({ TENANTFORM_ALLOWED_HOSTS: url.href })],
    [
      'TENANTFORM_ALLOWED_HOSTS (host alone: any port)',
      (url: URL) => ({ TENANTFORM_ALLOWED_HOSTS: url.hostname }),
    ],
    ['TENANTFORM_BASE_URL', (url: URL) => ({ TENANTFORM_BASE_URL: url.origin })],
  ])('by %s: the environment is planned and applied', async (_how, confirm) => {
    project(emulator.baseUrl);
    const env = { ...creds(), ...confirm(new URL(emulator.baseUrl)) };
    const plan = await runCli(['plan', '.', '--env', 'prod', '--refresh'], { cwd: work.dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await runCli(['apply', '.', '--env', 'prod', '--auto-approve'], { cwd: work.dir, env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(1);
  });

  it('by the command line (--base-url): whoever runs the command chose it', async () => {
    project(`http://127.0.0.1:${port}`);
    const run = await runCli(['plan', '.', '--env', 'prod', '--refresh', '--base-url', emulator.baseUrl], {
      cwd: work.dir,
      env: creds(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(connections).toBe(0);
  });

  it('another port of a host allowed with its port is not confirmed', async () => {
    project(emulator.baseUrl);
    const url = new URL(emulator.baseUrl);
    const run = await runCli(['plan', '.', '--env', 'prod', '--refresh'], {
      cwd: work.dir,
      env: { ...creds(), TENANTFORM_ALLOWED_HOSTS: `${url.hostname}:${Number(url.port) + 1}` },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing outside the repository confirms it');
    expect(emulator.requestCount()).toBe(0);
  });
});
