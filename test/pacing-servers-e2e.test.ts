/**
 * Pacing end to end over 127.0.0.1, against two limiters that share no code:
 * the emulator (its default Date, a front end's second refreshed once a
 * second) and one written from the service's docs alone
 * (test/helpers/doc-limiter.mjs, with Node's own Date, none, or an exact Date
 * from a front end 800 ms behind its limiter). Each apply creates 18 policies
 * on a burst of 6 and 6 added each second: every one created, and no 429,
 * whatever the Date says. Real clocks, but no timed assertion: a late request
 * only comes late, an early one would be a 429 (counted by the server).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/emulator/index.js';
import { runCli } from './helpers/cli.js';
import { permissionAt, policyAt, writeConfig } from '../bench/generate.mjs';
import { startDocLimiter } from './helpers/doc-limiter.mjs';

const N = 18;
const LIMIT = { burst: 6, perWindow: 6, windowSec: 1 };
const dir = mkdtempSync(join(tmpdir(), 'tenantform-pacing-servers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configDir(name: string): string {
  const items = Array.from(
    { length: N },
    (_, i) =>
      `  - { resource: oauth_authentication_api, consumer: client, consumer_selector: "client_id:c${i}", configuration: { action: allow } }\n`,
  );
  writeFileSync(join(dir, `${name}.yaml`), `rate_limit_policies:\n${items.join('')}`);
  return join(dir, `${name}.yaml`);
}

interface Server {
  baseUrl: string;
  token: string;
  stats(): { byStatus: Record<string, number> };
  stop(): Promise<void>;
}

async function applyAgainst(name: string, server: Server, config = configDir(name)) {
  try {
    const state = join(dir, `${name}.state.json`);
    const run = await runCli(
      ['apply', config, '--state', state, '--auto-approve', '--base-url', server.baseUrl],
      { cwd: dir, env: { TENANTFORM_TOKEN: server.token } },
    );
    const recorded = (JSON.parse(readFileSync(state, 'utf8')) as { resources: unknown[] }).resources.length;
    return { code: run.code, recorded, status429: server.stats().byStatus['429'] ?? 0, stderr: run.stderr };
  } finally {
    await server.stop();
  }
}

describe('pacing against two limiters, whatever the Date header says', () => {
  it('every policy created and no 429, on the emulator and on the docs-only limiter', async () => {
    const runs = await Promise.all([
      startEmulator({ rateLimit: { perWindow: LIMIT.perWindow, burst: LIMIT.burst } }).then((s) =>
        applyAgainst('emulator-second', s),
      ),
      startDocLimiter({ limit: LIMIT, date: 'node' }).then((s) => applyAgainst('docs-node', s)),
      startDocLimiter({ limit: LIMIT, date: 'absent' }).then((s) => applyAgainst('docs-absent', s)),
      startDocLimiter({ limit: LIMIT, date: 'exact', frontEndOffsetMs: -800 }).then((s) =>
        applyAgainst('docs-behind', s),
      ),
    ]);
    for (const r of runs)
      expect({ code: r.code, recorded: r.recorded, status429: r.status429 }).toEqual({
        code: 0,
        recorded: N,
        status429: 0,
      });
  }, 120_000);

  // Two endpoint groups with their own buckets: permissions (4, 4 a second) beside the
  // tenant's (6, 6 a second). Every route starts on one pacer and is split off once its
  // answers show another bucket: no 429, every resource created.
  it('a mixed apply across two endpoint groups: every policy and permission created, no 429', async () => {
    const mixed = join(dir, 'mixed');
    writeConfig(mixed, {
      policies: Array.from({ length: 12 }, (_, i) => policyAt(i)),
      permissions: Array.from({ length: 8 }, (_, i) => permissionAt(i, 1)),
      profiles: [],
    });
    const route = 'POST /api/v2/users/{id}/permissions';
    const group = { burst: 4, perWindow: 4, windowSec: 1 };
    const runs = await Promise.all([
      startEmulator({
        rateLimit: { perWindow: 6, burst: 6, groups: [{ name: 'users_write', routes: [route], ...group }] },
      }).then((s) => applyAgainst('emulator-groups', s, mixed)),
      startDocLimiter({
        limit: LIMIT,
        date: 'node',
        groups: [{ name: 'users_write', limit: group, routes: [route] }],
      }).then((s) => applyAgainst('docs-groups', s, mixed)),
    ]);
    for (const r of runs)
      expect({ code: r.code, recorded: r.recorded, status429: r.status429 }).toEqual({
        code: 0,
        recorded: 20,
        status429: 0,
      });
  }, 120_000);
});
