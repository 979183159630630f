/**
 * The built CLI (bin/ → dist/bundle/) reads the emulator's YAML files: a
 * --users list and a --seed tenant. (The bundle resolves the YAML library
 * only through src/config/yaml-lib.ts; a bare import of it failed there, so
 * `--users users.yaml` was "not valid YAML" while the sources passed.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const built = existsSync(join(root, 'dist', 'bundle', 'cli.cjs'));

let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Starts the built emulator with `args`; resolves with its --json line. */
function startBuilt(args: string[]): Promise<{ base_url: string; token: string }> {
  return new Promise((done, fail) => {
    child = spawn(process.execPath, [join(root, 'bin', 'tenantform.js'), 'emulator', '--json', ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes('\n')) done(JSON.parse(out.split('\n')[0]!) as { base_url: string; token: string });
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += String(chunk)));
    child.on('exit', (code) => fail(new Error(`emulator exited ${code}: ${err}`)));
  });
}

describe.skipIf(!built)('emulator files, with the built CLI', () => {
  it('reads --users and --seed from YAML', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenantform-emu-files-'));
    writeFileSync(join(dir, 'users.yaml'), '- auth0|alice\n');
    writeFileSync(
      join(dir, 'tenant.yaml'),
      'clients:\n  - { client_id: my-web-app, name: Web app }\nresourceServers:\n  - identifier: https://api.mine.example/\n    scopes: [{ value: "read:things" }]\n',
    );
    const emulator = await startBuilt(['--api', 'full', '--users', 'users.yaml', '--seed', 'tenant.yaml']);
    const get = async (path: string) =>
      (
        await fetch(`${emulator.base_url}${path}`, { headers: { authorization: `Bearer ${emulator.token}` } })
      ).json();
    // The service adds the tenant's name to every application it lists (observed).
    expect(await get('/clients')).toEqual([{ client_id: 'my-web-app', name: 'Web app', tenant: 'emulator' }]);
    expect(await get('/users/auth0%7Cbob/permissions')).toMatchObject({ statusCode: 404 });
    expect(await get('/users/auth0%7Calice/permissions')).toEqual([]);
  });
});
