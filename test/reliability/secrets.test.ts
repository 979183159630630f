/**
 * A canary token and a canary client secret never appear in stdout, stderr,
 * plan files, state, backup, lock or journal: on success, on errors (401
 * from the API, 401 from the token endpoint, 403, a URL carrying a
 * password) and under --debug; nor does any token the client fetched
 * (nothing shaped like a JWT is written anywhere). The journal is examined
 * after killing an apply midway, while it still holds entries.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EMULATOR_SCOPES, startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { tempDir } from '../helpers/cli.js';
import { assertBuilt, childEnv, Children, INTERNAL_ERROR, RequestTrap, type ChildResult } from './harness.js';
import { buildConfig, seededRandom, writeConfig } from './tenant-config.js';

const CANARY_TOKEN = 'canary-token-4b1d7e9a2c6f8035';
const CANARY_SECRET = 'canary-secret-Zq8Yx7Wv6Ut5Sr4';
const CANARY_CLIENT = 'canary-client';
/** A JWT: three base64url parts, the first two JSON objects ("eyJ"). */
const JWT = /eyJ[\w-]{6,}\.eyJ[\w-]{6,}\.[\w-]+/;

let emulator: EmulatorHandle;
let trap: RequestTrap;
let children: Children;
let dir: string;
let cleanup: () => void;

beforeAll(assertBuilt);
beforeEach(async () => {
  ({ dir, cleanup } = tempDir('tenantform-secrets-'));
  trap = new RequestTrap();
  emulator = await startEmulator({
    latencyMs: 2,
    sleep: trap.sleep,
    clients: [{ clientId: CANARY_CLIENT, clientSecret: CANARY_SECRET, scopes: [...EMULATOR_SCOPES] }],
  });
  children = new Children();
  writeConfig(
    join(dir, 'tenant.yaml'),
    buildConfig(seededRandom(3), 'sec', { policies: 15, profiles: 5, users: 5, permissionsPerUser: 3 }),
  );
});
afterEach(async () => {
  await children.killAll();
  await emulator.stop();
  cleanup();
});

const statePath = () => join(dir, 'state', 'state.json');
const applyArgs = (...extra: string[]) => [
  'apply',
  join(dir, 'tenant.yaml'),
  '--auto-approve',
  '--base-url',
  emulator.baseUrl,
  '--state',
  statePath(),
  '--debug',
  '--parallelism',
  '2',
  ...extra,
];
const clientCredentials = (secret = CANARY_SECRET) => ({
  TENANTFORM_CLIENT_ID: CANARY_CLIENT,
  TENANTFORM_CLIENT_SECRET: secret,
});

/** Every file under `root`, with its content. */
function filesUnder(root: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, 'utf8') });
  }
  return out;
}

/** No secret in the run's output nor in any file it left in the working directory. */
function expectNoSecrets(run: ChildResult, secrets: string[]): void {
  const exposures = [
    { path: 'stdout', text: run.stdout },
    { path: 'stderr', text: run.stderr },
    ...filesUnder(dir),
  ];
  for (const { path, text } of exposures) {
    for (const secret of secrets) expect(text, `${path} holds a secret`).not.toContain(secret);
    expect(text, `${path} holds a JWT`).not.toMatch(JWT);
  }
}

function run(args: string[], env: Record<string, string>): Promise<ChildResult> {
  return children.run(args, { cwd: dir, env: childEnv(env) });
}

describe('secrets stay out of output and files', () => {
  it('a refused canary token (401) under --debug', async () => {
    const result = await run(applyArgs(), { TENANTFORM_TOKEN: CANARY_TOKEN });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401 Unauthorized/);
    expect(result.stderr).not.toMatch(INTERNAL_ERROR);
    expect(result.stderr).toContain('[debug]');
    expectNoSecrets(result, [CANARY_TOKEN]);
  });

  it('a canary token read from --token-file and refused', async () => {
    const tokenFile = join(dir, 'token.txt');
    writeFileSync(tokenFile, `Bearer ${CANARY_TOKEN}\n`, { mode: 0o600 });
    const result = await run(applyArgs('--token-file', tokenFile), {});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401 Unauthorized/);
    // Everything but the token file itself.
    for (const f of filesUnder(dir).filter((file) => file.path !== tokenFile)) {
      expect(f.text, f.path).not.toContain(CANARY_TOKEN);
    }
    expect(result.stdout + result.stderr).not.toContain(CANARY_TOKEN);
  });

  it('a valid emulator token under --debug, on success', async () => {
    const result = await run(applyArgs(), { TENANTFORM_TOKEN: emulator.token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\[debug\] POST \/api\/v2\/rate-limit-policies 201/);
    expectNoSecrets(result, [emulator.token]);
  });

  it('a token lacking the scope (403) under --debug', async () => {
    const weak = emulator.issueToken({ scopes: ['update:users'] });
    const result = await run(applyArgs(), { TENANTFORM_TOKEN: weak });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/403 Forbidden/);
    expectNoSecrets(result, [weak]);
  });

  it('a canary client secret exchanged for tokens under --debug, on success', async () => {
    const result = await run(applyArgs(), clientCredentials());
    expect(result.code, result.stderr).toBe(0);
    expect(emulator.stats().byRoute['POST /oauth/token']).toBeGreaterThan(0);
    expectNoSecrets(result, [CANARY_SECRET]);
  });

  it('a wrong canary client secret refused by the token endpoint', async () => {
    const wrong = `${CANARY_SECRET}-wrong`;
    const result = await run(applyArgs(), clientCredentials(wrong));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/token endpoint refused the client credentials/);
    expectNoSecrets(result, [wrong, CANARY_SECRET]);
  });

  it('a base URL carrying a canary password is refused without echoing it', async () => {
    const url = emulator.baseUrl.replace('http://', `http://user:${CANARY_SECRET}@`);
    const result = await run([...applyArgs(), '--base-url', url], { TENANTFORM_TOKEN: emulator.token });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/must not contain a user name or password/);
    expect(emulator.requestCount()).toBe(0);
    expectNoSecrets(result, [CANARY_SECRET]);
  });

  it('the journal, lock and state of an apply killed midway, and a saved plan', async () => {
    // Killed after its twelfth request, once a record is in its journal: a worker sends on while
    // its answered operations are being synced (group commit), so under load the first record
    // may land after later requests arrive. The next request waits for it.
    const victim = children.start(applyArgs(), { cwd: dir, env: childEnv(clientCredentials()) });
    let armed = false;
    trap.arm(12, () => {
      armed = true;
    });
    trap.before(1, async () => {
      if (!armed) return;
      trap.before(1, null);
      const journal = `${statePath()}.journal`;
      await vi.waitFor(
        () => expect(existsSync(journal) && readFileSync(journal, 'utf8')).toMatch(/"op":"put"/),
        {
          timeout: 30_000,
          interval: 20,
        },
      );
      victim.process.kill('SIGKILL');
    });
    const killed = await victim.result;
    expect(killed.signal).toBe('SIGKILL');
    const left = filesUnder(join(dir, 'state')).map((f) => f.path);
    expect(left).toContain(`${statePath()}.journal`);
    expect(readFileSync(`${statePath()}.journal`, 'utf8')).toMatch(/"op":"put"/);
    expect(left).toContain(`${statePath()}.lock`);
    expectNoSecrets(killed, [CANARY_SECRET]);

    const planFile = join(dir, 'release.tfplan');
    const plan = await run(['plan', join(dir, 'tenant.yaml'), '--state', statePath(), '--out', planFile], {
      ...clientCredentials(),
      TENANTFORM_TOKEN: CANARY_TOKEN,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expectNoSecrets(plan, [CANARY_SECRET, CANARY_TOKEN]);
  });
});
