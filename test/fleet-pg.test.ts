/**
 * Fan-out across machines, on one machine: separate `tenantform apply`
 * processes on pg workspaces of one database. Two workspaces apply in
 * parallel; two processes on one workspace serialise on its lock, and the
 * second names the holder. The first apply is held mid-request by the
 * emulator (its latency sleep waits for the test), so nothing depends on
 * timing. The children run the built dist/ (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTenants, type TenantHandle } from '../src/emulator/index.js';
import { tempDir } from './helpers/cli.js';
import { describePg, dropWorkspace, freshWorkspace, PG_URL } from './state-pg-support.js';

const BIN = fileURLToPath(new URL('../bin/tenantform.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function tenantform(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', TENANTFORM_PG_URL: PG_URL, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describePg('pg workspaces, one per environment, in separate processes', () => {
  let tenants: TenantHandle[];
  let dir: string;
  let cleanup: () => void;
  let workspaces: string[];
  let release: () => void;
  let held: Promise<void>;
  let firstRequest: Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = tempDir('tenantform-fleet-pg-'));
    workspaces = [freshWorkspace('a'), freshWorkspace('b')];
    held = new Promise((r) => (release = r));
    let arrived!: () => void;
    firstRequest = new Promise((r) => (arrived = r));
    // Tenant a answers nothing until the test releases it; tenant b answers at once.
    const [a] = await startTenants(['a'], {
      latencyMs: 1,
      sleep: async () => {
        arrived();
        await held;
      },
    });
    const [b] = await startTenants(['b']);
    tenants = [a!, b!];
    for (const env of ['a', 'b']) {
      mkdirSync(join(dir, env));
      writeFileSync(
        join(dir, env, 'p.yaml'),
        `rate_limit_policies:\n  - { resource: oauth_authentication_api, consumer: client, consumer_selector: default, configuration: { action: block, limit: 5 } }\n`,
      );
    }
    writeFileSync(
      join(dir, 'tenantform.yaml'),
      `environments:\n` +
        tenants
          .map(
            (t, i) =>
              `  ${t.name}:\n    paths: [${t.name}]\n    base_url: ${t.baseUrl}\n    credentials: { token: ${t.name.toUpperCase()}_TOKEN }\n    state: { backend: pg, workspace: ${workspaces[i]} }\n`,
          )
          .join(''),
    );
  });

  afterEach(async () => {
    release();
    await Promise.all(tenants.map((t) => t.stop()));
    await Promise.all(workspaces.map((w) => dropWorkspace(w)));
    cleanup();
  });

  it('applies two workspaces in parallel; a second apply on one workspace waits for its lock and names the holder', async () => {
    const env = {
      A_TOKEN: tenants[0]!.token,
      B_TOKEN: tenants[1]!.token,
      TENANTFORM_ALLOWED_HOSTS: tenants.map((t) => new URL(t.baseUrl).host).join(','),
    };
    const first = tenantform(['apply', '.', '--env', 'a', '--auto-approve'], dir, env);
    await firstRequest; // the first process holds workspace a's lock, mid-request

    const other = await tenantform(['apply', '.', '--env', 'b', '--auto-approve'], dir, env);
    expect(other.stderr).toBe('');
    expect(other.code).toBe(0);
    expect(tenants[1]!.snapshot().rateLimitPolicies).toHaveLength(1);

    const same = await tenantform(['apply', '.', '--env', 'a', '--auto-approve'], dir, env);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain(`pg workspace "${workspaces[0]}"`);
    expect(same.stderr).toMatch(/is locked by apply \(pid \d+ on host /);

    release();
    const done = await first;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(tenants[0]!.snapshot().rateLimitPolicies).toHaveLength(1);
  }, 60_000);
});
