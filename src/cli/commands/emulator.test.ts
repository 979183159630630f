import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import type { CommandIO } from '../io.js';
import {
  parseFaultSpec,
  parseLatencySpec,
  parseUsersFile,
  runEmulator,
  type EmulatorCommandOptions,
} from './emulator.js';

let dir: string;
let controller: AbortController;
let running: Promise<number> | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenantform-emulator-cli-'));
  controller = new AbortController();
});
afterEach(async () => {
  controller.abort();
  await running;
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** An IO whose `ready` resolves once stdout has received a whole line (the command writes its banner at once). */
function makeIO() {
  const out = { stdout: '', stderr: '' };
  let resolveReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const io: CommandIO = {
    stdout: {
      write: (s: string) => {
        out.stdout += s;
        if (out.stdout.includes('\n')) resolveReady();
      },
    },
    stderr: { write: (s: string) => (out.stderr += s) },
    env: {},
    cwd: dir,
    signal: controller.signal,
  };
  return { io, out, ready };
}

const base: EmulatorCommandOptions = { host: '127.0.0.1', port: 0, json: true };

describe('tenantform emulator', () => {
  it('prints exactly one JSON line with usable credentials, then stops cleanly on the signal', async () => {
    const { io, out, ready } = makeIO();
    running = runEmulator(base, io);
    await Promise.race([ready, running]);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0]!) as Record<string, string>;
    expect(Object.keys(info)).toEqual(['base_url', 'token', 'client_id', 'client_secret']);
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    const res = await fetch(`${info.base_url}/token-exchange-profiles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'abc',
        subject_token_type: 'urn:x:token',
        action_id: 'a',
        type: 'custom_authentication',
      }),
    });
    expect(res.status).toBe(201);
    controller.abort();
    expect(await running).toBe(0);
    await expect(fetch(`${info.base_url}/token-exchange-profiles`, { method: 'POST' })).rejects.toThrow();
  });

  it('with --api full says so in the JSON line and serves PATCH; by default PATCH is 405 as before', async () => {
    const patch = (baseUrl: string, token: string) =>
      fetch(`${baseUrl}/rate-limit-policies/rlp_unknown`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ configuration: { action: 'allow' } }),
      });
    const full = makeIO();
    running = runEmulator({ ...base, api: 'full' }, full.io);
    await Promise.race([full.ready, running]);
    const info = JSON.parse(full.out.stdout.trimEnd()) as Record<string, string>;
    expect(info.api).toBe('full');
    expect((await patch(info.base_url!, info.token!)).status).toBe(404);
    controller.abort();
    expect(await running).toBe(0);

    controller = new AbortController();
    const spec = makeIO();
    running = runEmulator(base, spec.io);
    await Promise.race([spec.ready, running]);
    const plain = JSON.parse(spec.out.stdout.trimEnd()) as Record<string, string>;
    expect(plain.api).toBeUndefined();
    expect((await patch(plain.base_url!, plain.token!)).status).toBe(405);
  });

  it('refuses an unknown --api', async () => {
    const { io, out } = makeIO();
    expect(await runEmulator({ ...base, api: 'everything' }, io)).toBe(1);
    expect(out.stderr).toBe('Error: --api must be spec or full (got everything)\n');
  });

  it('prints the base URL, credentials and export lines for people', async () => {
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, json: false, rateLimit: 5, faults: 'error=0.1', latency: '10:5' }, io);
    await Promise.race([ready, running]);
    expect(out.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/api\/v2/);
    expect(out.stdout).toMatch(/export TENANTFORM_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v2\n/);
    expect(out.stdout).toMatch(/export TENANTFORM_TOKEN=[\w-]+\.[\w-]+\.[\w-]+\n/);
    expect(out.stdout).toContain('export TENANTFORM_CLIENT_SECRET=');
    expect(out.stdout).toContain(
      'rate limit:     burst 5, 5/s added at the top of each second, per tenant, shared by its clients\n',
    );
    expect(out.stdout).toContain('faults:         error 0.1, reset 0, lost 0');
    controller.abort();
    expect(await running).toBe(0);
    expect(out.stderr).toBe('Emulator stopped.\n');
  });

  it('names the tier, the model and the clock skew in the banner', async () => {
    const tier = makeIO();
    running = runEmulator(
      {
        ...base,
        json: false,
        rateLimitTier: 'enterprise-nonprod',
        clockSkew: -2.5,
        dateHeader: 'exact',
        frontEndOffset: -0.8,
      },
      tier.io,
    );
    await Promise.race([tier.ready, running]);
    expect(tier.out.stdout).toContain(
      'rate limit:     burst 10, 2/s added at the top of each second, per tenant, shared by its clients (tier enterprise-nonprod)\n',
    );
    expect(tier.out.stdout).toContain("tenant clock:   2.5 s behind this machine's");
    expect(tier.out.stdout).toContain(
      "Date header:    the second of each answer, from a clock 0.8 s behind the rate limiter's\n",
    );
    controller.abort();
    expect(await running).toBe(0);

    controller = new AbortController();
    const slow = makeIO();
    running = runEmulator(
      { ...base, json: false, rateLimit: 0.5, rateLimitModel: 'continuous', rateLimitScope: 'client' },
      slow.io,
    );
    await Promise.race([slow.ready, running]);
    expect(slow.out.stdout).toContain('rate limit:     burst 1, 0.5/s added continuously, per client\n');
    expect(slow.out.stdout).not.toContain('tenant clock');
    controller.abort();
    expect(await running).toBe(0);

    controller = new AbortController();
    const minute = makeIO();
    running = runEmulator(
      { ...base, json: false, rateLimit: 500, burst: 40, rateLimitWindow: 60 },
      minute.io,
    );
    await Promise.race([minute.ready, running]);
    expect(minute.out.stdout).toContain(
      'rate limit:     burst 40, 500 per 60 s added at the top of each 60 s window,',
    );
  });

  it('with --tls prints the CA file in the JSON line and as NODE_EXTRA_CA_CERTS for people, and removes it on stop', async () => {
    const json = makeIO();
    running = runEmulator({ ...base, tls: true }, json.io);
    await Promise.race([json.ready, running]);
    const info = JSON.parse(json.out.stdout) as Record<string, string>;
    expect(Object.keys(info)).toEqual(['base_url', 'token', 'client_id', 'client_secret', 'ca_file']);
    expect(info.base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    expect((await readFile(info.ca_file!, 'utf8')).startsWith('-----BEGIN CERTIFICATE-----\n')).toBe(true);
    controller.abort();
    expect(await running).toBe(0);
    await expect(stat(info.ca_file!)).rejects.toThrow();

    controller = new AbortController();
    const human = makeIO();
    running = runEmulator({ ...base, json: false, tls: true }, human.io);
    await Promise.race([human.ready, running]);
    expect(human.out.stdout).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+\/api\/v2/);
    expect(human.out.stdout).toMatch(/CA certificate: +\S+ca\.pem {2}\(removed on stop\)\n/);
    expect(human.out.stdout).toMatch(/export NODE_EXTRA_CA_CERTS=\S+ca\.pem\n/);
    expect(human.out.stdout).toContain('rate limit:     none (X-RateLimit-Limit 10000, never empty)');
  });

  it.each([
    [{ faults: 'error=2' }, '--faults: error must be a fraction from 0 to 1'],
    [{ faults: 'timeout=0.1' }, 'unknown fault "timeout"'],
    [{ faults: 'error=0.7,reset=0.7' }, 'add up to at most 1'],
    [{ latency: 'slow' }, '--latency must be MS or MS:JITTER'],
    [{ burst: 3 }, '--burst needs --rate-limit'],
    [{ rateLimitScope: 'tenant' }, '--rate-limit-scope needs --rate-limit'],
    [
      { rateLimit: 5, rateLimitScope: 'everyone' },
      '--rate-limit-scope must be tenant or client (got everyone)',
    ],
    [{ rateLimit: 5, burst: 0 }, '--burst must be a whole number'],
    [{ rateLimitWindow: 60 }, '--rate-limit-window needs --rate-limit or --rate-limit-tier'],
    [{ rateLimitModel: 'continuous' }, '--rate-limit-model needs --rate-limit or --rate-limit-tier'],
    [
      { rateLimitTier: 'free', rateLimit: 5, burst: 3 },
      '--rate-limit-tier sets the rate, burst and window; it cannot be combined with --rate-limit and --burst',
    ],
    [{ rateLimitTier: 'gold' }, '--rate-limit-tier must be one of free, enterprise-nonprod,'],
    [
      { rateLimit: 5, rateLimitModel: 'leaky' },
      '--rate-limit-model must be window or continuous (got leaky)',
    ],
    [
      { rateLimit: 0.5 },
      '--rate-limit must be a whole number in the window model, which adds whole requests at the top of each window (got 0.5); for a slower rate give a longer window (--rate-limit-window), or choose the continuous model (--rate-limit-model)',
    ],
    [{ rateLimit: 5, rateLimitWindow: 0 }, '--rate-limit-window must be a whole number of seconds from 1'],
    [{ clockSkew: 100_000 }, '--clock-skew must be a number of seconds from -86400 to 86400 (got 100000)'],
    [{ dateHeader: 'late' }, '--date-header must be second, exact, absent (got late)'],
    [{ frontEndOffset: 90 }, '--front-end-offset must be a number of seconds from -60 to 60 (got 90)'],
    [{ rateLimit: -1 }, '--rate-limit must be a positive number'],
    [{ port: 70000 }, '--port must be a whole number from 0 to 65535'],
    [{ host: ' ' }, '--host must not be empty'],
    [{ users: 'missing.txt' }, '--users: cannot read missing.txt: ENOENT'],
  ])('exits 1 with a clear message for %o', async (flags, message) => {
    const { io, out } = makeIO();
    expect(await runEmulator({ ...base, ...flags }, io)).toBe(1);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
  });

  it('exits 1 when the port is taken', async () => {
    const other = await startEmulator();
    try {
      const { io, out } = makeIO();
      expect(await runEmulator({ ...base, port: other.port }, io)).toBe(1);
      expect(out.stderr).toContain('already in use');
    } finally {
      await other.stop();
    }
  });

  it('restricts users to the --users file and keeps --data beside the working directory', async () => {
    await writeFile(join(dir, 'users.txt'), '# known users\nauth0|alice\n\n  auth0|bob  \n');
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, users: 'users.txt', data: 'tenant.json' }, io);
    await Promise.race([ready, running]);
    const info = JSON.parse(out.stdout) as Record<string, string>;
    const assign = (user: string) =>
      fetch(`${info.base_url}/users/${encodeURIComponent(user)}/permissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          permissions: [{ resource_server_identifier: 'https://api', permission_name: 'p' }],
        }),
      });
    expect((await assign('auth0|bob')).status).toBe(201);
    expect((await assign('auth0|carol')).status).toBe(404);
    controller.abort();
    expect(await running).toBe(0);
    expect((await stat(join(dir, 'tenant.json'))).isFile()).toBe(true);
  });
});

describe('tenantform emulator --seed', () => {
  it('starts with the tenant of a JSON seed, its reference data under --api full, and names it in the banner', async () => {
    await writeFile(
      join(dir, 'tenant.json'),
      JSON.stringify({ clients: [{ client_id: 'seeded-app' }], actions: [], resourceServers: [] }),
    );
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, json: false, api: 'full', seed: 'tenant.json' }, io);
    await Promise.race([ready, running]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.stdout).toContain('reference data: 1 application, 0 actions, 0 APIs');
    controller.abort();
    expect(await running).toBe(0);
  });

  it.each([
    [
      'with --data',
      { seed: 'tenant.json', data: 'data.json' },
      '--seed and --data exclude each other: the data file holds the tenant',
    ],
    ['when the file is missing', { seed: 'missing.yaml' }, '--seed: cannot read missing.yaml: ENOENT'],
    ['when it is not YAML', { seed: 'bad.yaml' }, '--seed: bad.yaml is not valid YAML'],
    [
      'naming reference data under --api spec',
      { seed: 'refs.yaml' },
      'the seed is unusable: Unknown field(s) in the state: clients (clients: reference data, held under API profile full only)',
    ],
  ])('exits 1 %s, before listening', async (_case, flags, message) => {
    await writeFile(join(dir, 'tenant.json'), '{}');
    await writeFile(join(dir, 'bad.yaml'), 'clients: [\n');
    await writeFile(join(dir, 'refs.yaml'), 'clients: []\n');
    const { io, out } = makeIO();
    expect(await runEmulator({ ...base, ...flags }, io)).toBe(1);
    expect(out.stderr).toBe(`Error: ${message}\n`);
    expect(out.stdout).toBe('');
  });
});

describe('spec parsers', () => {
  it('re-exports the fault and latency parsers', () => {
    expect(parseFaultSpec('reset=0.25')).toEqual({ reset: 0.25 });
    expect(parseLatencySpec('100:50')).toEqual({ latencyMs: 100, latencyJitterMs: 50 });
  });

  it.each([
    ['users.json', '["auth0|a", "auth0|b"]', ['auth0|a', 'auth0|b']],
    ['users.yaml', '- auth0|a\n- "auth0|b"\n', ['auth0|a', 'auth0|b']],
    ['users.txt', 'auth0|a\r\n# comment\r\nauth0|b\r\n', ['auth0|a', 'auth0|b']],
    ['users', '[]', []],
  ])('reads the user list from %s', async (name, text, expected) => {
    expect(await parseUsersFile(text, name)).toEqual(expected);
  });

  it.each([
    ['users.json', '{"a": 1}', 'must list user ids'],
    ['users.json', '[1, 2]', 'must list user ids'],
    ['users.yaml', 'a: [', 'not valid YAML'],
    ['users.json', '[', 'not valid JSON'],
  ])('refuses %s containing %s', async (name, text, message) => {
    await expect(parseUsersFile(text, name)).rejects.toThrow(message);
  });
});

describe('tenantform emulator --tenants', () => {
  it('prints one JSON line with the pid and each tenant, whose data and tokens are its own', async () => {
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, tenants: 'eu,us', data: join(dir, 'data') }, io);
    await Promise.race([ready, running]);
    const info = JSON.parse(out.stdout) as {
      pid: number;
      tenants: { name: string; base_url: string; token: string }[];
    };
    expect(info.pid).toBe(process.pid);
    expect(info.tenants.map((t) => t.name)).toEqual(['eu', 'us']);
    const [eu, us] = info.tenants as [(typeof info.tenants)[0], (typeof info.tenants)[0]];
    expect(eu.base_url).not.toBe(us.base_url);
    const post = (t: typeof eu, token: string) =>
      fetch(`${t.base_url}/token-exchange-profiles`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'abc',
          subject_token_type: 'urn:x:token',
          action_id: 'a',
          type: 'custom_authentication',
        }),
      });
    expect((await post(eu, eu.token)).status).toBe(201);
    expect((await post(us, eu.token)).status).toBe(401);
    controller.abort();
    expect(await running).toBe(0);
    // --data is a directory with one file per tenant.
    expect((await stat(join(dir, 'data', 'eu.json'))).isFile()).toBe(true);
  });

  it('with --tenants and --tls prints one CA file for every tenant, removed on stop', async () => {
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, tenants: '2', tls: true }, io);
    await Promise.race([ready, running]);
    const info = JSON.parse(out.stdout) as { ca_file: string; tenants: { base_url: string }[] };
    expect(info.tenants.map((t) => t.base_url)).toEqual([
      expect.stringMatching(/^https:\/\//),
      expect.stringMatching(/^https:\/\//),
    ]);
    expect((await stat(info.ca_file)).isFile()).toBe(true);
    controller.abort();
    expect(await running).toBe(0);
    await expect(stat(info.ca_file)).rejects.toThrow();
  });

  it('prints export lines per tenant for people', async () => {
    const { io, out, ready } = makeIO();
    running = runEmulator({ ...base, json: false, tenants: '2' }, io);
    await Promise.race([ready, running]);
    expect(out.stdout).toMatch(/^ {2}t1 {2}http:\/\/127\.0\.0\.1:\d+\/api\/v2$/m);
    expect(out.stdout).toMatch(/^ {2}export T2_TOKEN=[\w-]+\.[\w-]+\.[\w-]+$/m);
    expect(out.stdout).toContain('export T1_CLIENT_SECRET=');
  });

  it('refuses a bad --tenants list before listening', async () => {
    const { io, out } = makeIO();
    expect(await runEmulator({ ...base, tenants: 'a,a' }, io)).toBe(1);
    expect(out.stderr).toContain('--tenants lists a name twice');
  });
});
