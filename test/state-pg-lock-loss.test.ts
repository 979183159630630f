/**
 * Issue 29, item 7, against the real PostgreSQL server: an apply (A) loses
 * its lock when its lock session is terminated; a second apply (B), waiting
 * with --lock-timeout, takes the lock over and creates the policies A still
 * had in flight; A's requests then reach the tenant and are answered 409, and
 * A, unable to record, writes them to its rescue file as adopted without an
 * id. The next apply replays that file, and must keep the ids B recorded
 * (before: it replaced them with none). B's takeover message must not claim
 * that A stopped: only its database session ended.
 *
 * A and B run in this process, both through a small proxy in front of the
 * emulator (one target, one tenant) that holds A's requests (told apart by
 * A's bearer token) from the moment A's lock is taken away until B is done.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runIO } from '../src/cli/context.js';
import { withLockedState } from '../src/run/locked-state.js';
import { createPgStateStore } from '../src/state/pg/index.js';
import { LINEAGE, profile, putEntry } from './helpers/state-contract-fixtures.js';
import { openState, readStateSnapshot, writeRescueFile, type StateStore } from '../src/state/index.js';
import { runCli, tempDir, type CliRun } from './helpers/cli.js';
import { referenceSeed } from './helpers/reference-seed.js';
import { describePg, dropWorkspace, freshWorkspace, PG_URL, sql } from './state-pg-support.js';

const POLICIES = 16;
const PARALLELISM = 4;
/** A's create at which its lock session is terminated (its earlier ones are journaled). */
const TRIGGER_AT = 6;

/** A proxy to the emulator that can hold the requests of one bearer token until released. */
interface HoldingProxy {
  baseUrl: string;
  /** Calls `trigger` (once) when the `nth` POST of `auth` arrives; from then on, holds `auth`'s requests until it resolves. */
  holdFrom(auth: string, nth: number, trigger: () => Promise<void>): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function startProxy(emulator: EmulatorHandle): Promise<HoldingProxy> {
  let hold: { auth: string; nth: number; trigger: () => Promise<void> } | null = null;
  let seen = 0;
  let gate: Promise<void> | null = null;
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const payload = await body(req);
    const auth = req.headers.authorization;
    if (hold && auth === hold.auth) {
      if (req.method === 'POST' && ++seen === hold.nth) gate = hold.trigger();
      if (gate) await gate;
    }
    const answer = await fetch(`${emulator.origin}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => ['authorization', 'content-type'].includes(k)),
      ) as Record<string, string>,
      body: payload.length > 0 ? payload : undefined,
    });
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, key) => {
      if (!['connection', 'transfer-encoding', 'content-length', 'keep-alive'].includes(key))
        headers[key] = value;
    });
    res.writeHead(answer.status, headers);
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
  const server: Server = createServer((req, res) => {
    forward(req, res).catch((err: unknown) => {
      res.writeHead(502);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    holdFrom: (auth, nth, trigger) => (hold = { auth, nth, trigger }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Terminates the session that holds the workspace's lock, as a DBA or a network failure would; its row stays. */
async function terminateLockSession(workspace: string): Promise<void> {
  const ended = await sql<{ ok: boolean }>(
    'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
    [`tenantform lock ${workspace}`],
  );
  expect(ended.map((r) => r.ok)).toEqual([true]);
}

/** Rescue files in the temp directory that belong to this workspace (the pg store writes them there). */
function rescueFiles(workspace: string): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('tenantform-rescue-'))
    .map((name) => join(tmpdir(), name))
    .filter((path) => readFileSync(path, 'utf8').includes(`pg workspace \\"${workspace}\\"`));
}

/** The tenant of the race test and its proxy, stopped after each test. */
let tenantUp: { emulator: EmulatorHandle; proxy: HoldingProxy } | undefined;
let work: { dir: string; cleanup: () => void };
let workspace: string;

beforeEach(async () => {
  work = tempDir('tenantform-pg-lock-loss-');
  workspace = freshWorkspace('lock-loss');
});
afterEach(async () => {
  for (const path of rescueFiles(workspace)) rmSync(path, { force: true });
  await tenantUp?.proxy.close();
  await tenantUp?.emulator.stop();
  tenantUp = undefined;
  await dropWorkspace(workspace);
  work.cleanup();
});

describePg('an apply that loses its PostgreSQL lock to a waiting apply', () => {
  // Under spec a 409 leaves the create without an id (adopted) and the replay keeps B's;
  // under full each apply that meets a 409 looks the id up, so nothing is without one.
  it.each(['spec', 'full'] as const)(
    'API profile %s: keeps every id the apply that took over recorded, and says only the session ended',
    async (api) => {
      const clients = Array.from({ length: POLICIES }, (_, i) => `app-${String(i).padStart(2, '0')}`);
      const tenant = await startEmulator(api === 'full' ? { api, seed: referenceSeed({ clients }) } : {});
      const proxy = await startProxy(tenant);
      tenantUp = { emulator: tenant, proxy };
      const config = join(work.dir, 'tenant.yaml');
      writeFileSync(
        config,
        'rate_limit_policies:\n' +
          Array.from(
            { length: POLICIES },
            (_, i) =>
              `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: client_id:app-${String(i).padStart(2, '0')}\n    configuration: { action: block, limit: 100 }\n`,
          ).join(''),
      );
      const args = [
        'apply',
        config,
        '--auto-approve',
        '--base-url',
        proxy.baseUrl,
        '--backend',
        'pg',
        '--api',
        api,
      ];
      const run = (extra: string[], env: Record<string, string>) =>
        runCli([...args, '--workspace', workspace, ...extra], {
          cwd: work.dir,
          env: { TENANTFORM_PG_URL: PG_URL, ...env },
        });
      // Two bearer tokens of the demo client, told apart by their lifetime: the proxy holds A's only.
      const tokenA = tenant.issueToken({ expiresInSec: 3600 });
      const asA = { TENANTFORM_TOKEN: tokenA };
      const asB = { TENANTFORM_TOKEN: tenant.token };

      let second: CliRun | null = null;
      proxy.holdFrom(`Bearer ${tokenA}`, TRIGGER_AT, async () => {
        await terminateLockSession(workspace);
        second = await run(['--lock-timeout', '30s'], asB);
      });
      const first = await run(['--parallelism', String(PARALLELISM)], asA);

      // B took over, replayed A's journal and created the rest, A's held creates included.
      expect(second).not.toBeNull();
      const b = second!;
      expect(b.code, b.stderr).toBe(0);
      expect(b.stderr).toMatch(
        /^Took over the state lock of apply \(pid \d+ on host [^,]+, since [^)]+\): its database session ended \(terminated, disconnected or force-unlocked\); the process may still be running, but it can write nothing more to this state/m,
      );
      expect(b.stderr).not.toContain('no longer running');
      // A stopped: its held creates were answered 409, unrecorded, and kept in its rescue file.
      expect(first.code).toBe(1);
      expect(first.stderr).toMatch(/lock on pg workspace .* was lost/);
      const rescued = first.stderr.split('\n').filter((line) => line.startsWith('tenantform-rescue: '));
      expect(rescued.length).toBeGreaterThan(0);
      // At least A's create that met the takeover: B made it first, and A was answered 409,
      // which under full A looked up: its rescue file has the id.
      const withoutId = rescued.filter((line) => line.includes('"id":null,"adopted":true'));
      if (api === 'spec') expect(withoutId.length).toBeGreaterThan(0);
      else expect(withoutId).toEqual([]);
      // Every id a rescued entry carries is the tenant's own for that policy.
      const liveIds = new Map(tenant.snapshot().rateLimitPolicies.map((p) => [p.consumer_selector, p.id]));
      for (const line of rescued) {
        const entry = JSON.parse(line.slice('tenantform-rescue: '.length)) as {
          resource?: { id: string | null; attributes: { consumer_selector: string } };
        };
        if (entry.resource?.id)
          expect(entry.resource.id).toBe(liveIds.get(entry.resource.attributes.consumer_selector));
      }
      expect(rescueFiles(workspace)).toHaveLength(1);

      // The next apply replays A's rescue file, keeping the ids B recorded.
      const third = await run([], asA);
      expect(third.code, third.stderr).toBe(0);
      if (api === 'spec')
        expect(third.stderr).toMatch(/Rescue file .*: kept the recorded id rlp_\S+ of rate_limit_policy/);
      else expect(third.stderr).not.toContain('kept the recorded id');
      expect(rescueFiles(workspace)).toEqual([]);
      const store = createPgStateStore({ connectionString: PG_URL, workspace });
      try {
        const doc = (await readStateSnapshot(store))!;
        const live = new Map(tenant.snapshot().rateLimitPolicies.map((p) => [p.consumer_selector, p.id]));
        expect(live.size).toBe(POLICIES);
        expect(doc.resources.map((r) => [r.attributes.consumer_selector, r.id])).toEqual(
          [...live.entries()].sort(([x], [y]) => (x < y ? -1 : 1)),
        );
      } finally {
        await store.close();
      }
    },
    120_000,
  );
});

describePg('an apply that takes over a PostgreSQL lock', () => {
  it('first replays the rescue file the displaced apply wrote while it waited', async () => {
    // A holds the lock and has recorded one profile.
    const storeA = createPgStateStore({ connectionString: PG_URL, workspace });
    const storeB = createPgStateStore({ connectionString: PG_URL, workspace });
    const a = await openState(storeA, { command: 'apply', host: 'ci-7', pid: 4242, lineage: () => LINEAGE });
    await a.record({ op: 'put', resource: profile(1) });
    let written = '';
    // B asks for the lock; while it waits, A rescues what it had in flight (a create
    // answered with its id) and its session is terminated, as in the race above.
    const waiting: StateStore = new Proxy(storeB, {
      get(target, key) {
        if (key !== 'lock') {
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function'
            ? (value as (...args: unknown[]) => unknown).bind(target)
            : value;
        }
        return async (...args: Parameters<StateStore['lock']>) => {
          const taking = target.lock(...args);
          written = await writeRescueFile(storeA, [putEntry(profile(2, 'tep_in_flight'))]);
          await sql('SELECT pg_terminate_backend(backend_pid) FROM tenantform.locks WHERE workspace = $1', [
            workspace,
          ]);
          return taking;
        };
      },
    });
    let stderr = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
      env: {},
      cwd: work.dir,
    };
    try {
      const seen = await withLockedState(
        waiting,
        'apply',
        { lockTimeoutMs: 30_000 },
        runIO(io),
        async (session) => session.doc.resources.map((r) => [r.address, r.id]),
      );
      expect(seen).toEqual([
        [profile(1).address, 'tep_1'],
        [profile(2).address, 'tep_in_flight'],
      ]);
      expect(stderr).toMatch(
        /^Took over the state lock of apply \(pid 4242 on host ci-7, .*its database session ended/m,
      );
      expect(stderr).toContain(
        `Rescue file ${written}: 1 acknowledged operation(s) recorded into the state.`,
      );
      expect(rescueFiles(workspace)).toEqual([]);
      // A can record nothing more: its lock is gone.
      await expect(a.record({ op: 'put', resource: profile(3) })).rejects.toThrow(/lost/);
    } finally {
      await a.release().catch(() => undefined);
      await storeA.close();
      await storeB.close();
    }
  }, 60_000);
});
