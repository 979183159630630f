import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorOptionError } from './faults.js';
import { EMULATOR_KINDS } from './kinds/index.js';
import { DataFileWriter, loadDataFile } from './persistence.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorSnapshot } from './types.js';

/** Every kind's part, empty: what a fresh tenant holds. */
const EMPTY = Object.fromEntries(
  EMULATOR_KINDS.map((m) => [m.key, m.empty()]),
) as unknown as EmulatorSnapshot;

let dir: string;
let file: string;
let emu: EmulatorHandle | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenantform-emulator-'));
  file = join(dir, 'tenant.json');
});
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function post(e: EmulatorHandle, path: string, body: unknown) {
  return fetch(`${e.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'third_party_clients',
  configuration: { action: 'log', limit: 50 },
};

describe('--data persistence', () => {
  it('keeps the tenant across a restart, in a 0600 file without secrets', async () => {
    const first = await startEmulator({ dataFile: file });
    emu = first;
    const created = (await (await post(first, '/rate-limit-policies', policy)).json()) as { id: string };
    await post(first, '/users/auth0%7Cx/permissions', {
      permissions: [{ resource_server_identifier: 'https://api', permission_name: 'read:x' }],
    });
    await post(first, '/token-exchange-profiles', {
      name: 'Partner',
      subject_token_type: 'urn:partner:token',
      action_id: 'act_1',
      type: 'custom_authentication',
    });
    const before = first.snapshot();
    await first.stop();
    emu = undefined;

    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    for (const secret of [first.clientSecret, first.token, first.adminKey])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({ version: 1 });
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const second = await startEmulator({ dataFile: file });
    emu = second;
    expect(second.snapshot()).toEqual(before);
    expect((await post(second, '/rate-limit-policies', policy)).status).toBe(409);
    const del = await fetch(`${second.baseUrl}/rate-limit-policies/${created.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${second.token}` },
    });
    expect(del.status).toBe(204);
  });

  it('starts empty when the file does not exist yet and writes it on the first change', async () => {
    emu = await startEmulator({ dataFile: join(dir, 'sub', 'new.json') });
    expect(emu.snapshot().rateLimitPolicies).toEqual([]);
    await post(emu, '/rate-limit-policies', policy);
    await emu.stop();
    emu = undefined;
    expect((await loadDataFile(join(dir, 'sub', 'new.json')))?.rateLimitPolicies).toHaveLength(1);
  });

  it('persists a reset', async () => {
    emu = await startEmulator({ dataFile: file });
    await post(emu, '/rate-limit-policies', policy);
    emu.reset();
    await emu.stop();
    emu = undefined;
    expect(await loadDataFile(file)).toEqual(EMPTY);
  });

  it.each(EMULATOR_KINDS.map((m) => [m.key] as const))(
    'loads a file without the %s part (written before its kind was added) with the part empty',
    async (key) => {
      const { [key]: _left, ...rest } = EMPTY;
      await writeFile(file, JSON.stringify({ version: 1, ...rest }));
      expect(await loadDataFile(file)).toEqual(EMPTY);
    },
  );

  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['an unknown version', '{"version": 9}', 'unknown version 9'],
    ['a list', '[]', 'not a JSON object'],
    [
      'a malformed policy',
      JSON.stringify({
        version: 1,
        rateLimitPolicies: [{ id: 'x' }],
        tokenExchangeProfiles: [],
        userPermissions: {},
      }),
      'rate limit policy is malformed',
    ],
    [
      'malformed permissions',
      JSON.stringify({
        version: 1,
        rateLimitPolicies: [],
        tokenExchangeProfiles: [],
        userPermissions: { u: [{}] },
      }),
      'permissions of user "u"',
    ],
    [
      'a part of the wrong shape',
      JSON.stringify({ version: 1, rateLimitPolicies: {} }),
      'rateLimitPolicies must be a list',
    ],
  ])('refuses to start from %s', async (_name, text, message) => {
    await writeFile(file, text);
    const started = startEmulator({ dataFile: file });
    await expect(started).rejects.toThrow(EmulatorOptionError);
    await expect(started).rejects.toThrow(message);
  });
});

describe('DataFileWriter', () => {
  it('coalesces many changes into few writes and flushes on demand', async () => {
    let reads = 0;
    const empty = EMPTY;
    const writer = new DataFileWriter(file, () => (reads++, empty), 60_000);
    for (let i = 0; i < 100; i++) writer.schedule();
    await writer.flush();
    expect(reads).toBe(1);
    await writer.flush();
    expect(reads).toBe(1);
    expect(await loadDataFile(file)).toEqual(empty);
  });

  it('reports a failed write to onError and from flush', async () => {
    const errors: string[] = [];
    const empty = EMPTY;
    await writeFile(join(dir, 'blocker'), 'a file, not a folder');
    const writer = new DataFileWriter(
      join(dir, 'blocker', 'x.json'),
      () => empty,
      0,
      (e) => errors.push(e.message),
    );
    writer.schedule();
    await expect(writer.flush()).rejects.toThrow();
    expect(errors).toHaveLength(1);
  });
});
