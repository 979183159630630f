/**
 * A private, throwaway PostgreSQL server for tests that stop, kill or restart
 * the server (never the shared one other test files use). initdb into a temp
 * directory, start on a free port (trust authentication on 127.0.0.1 only),
 * and give the test the means to stop, kill and restart it. As root, the
 * server's tools run as the postgres user (the server refuses root), like
 * scripts/ci-postgres.sh. Without server binaries it reports why (the caller
 * skips outside CI).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivatePg {
  url: string;
  port: number;
  /** pg_ctl stop -m immediate (no shutdown checkpoint: like a crash). */
  stopImmediate(): void;
  /** SIGKILL of the postmaster. */
  killPostmaster(): void;
  /** Starts the server again on the same port and data. */
  start(): void;
  /** Stops the server and removes its data. */
  destroy(): void;
}

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const dir = join(root, v, 'bin');
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

/** Why a private server cannot be started here, or null when it can. */
export function privatePgUnavailable(): string | null {
  if (!binDir()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0)
    return 'running as root without a postgres user';
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts a private server; call destroy() in afterAll. Takes a few seconds (initdb). */
export async function startPrivatePg(): Promise<PrivatePg> {
  const bin = binDir();
  if (!bin) throw new Error(privatePgUnavailable() ?? 'no PostgreSQL');
  const root = process.getuid?.() === 0;
  const base = mkdtempSync(join(tmpdir(), 'tenantform-private-pg-'));
  const data = join(base, 'data');
  const socketDir = join(base, 'run');
  const log = join(base, 'server.log');
  const owner = root ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : -1;
  const group = root ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : -1;
  const run = (tool: string, args: string[], allowFail = false): void => {
    const [cmd, argv] = root
      ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
      : [join(bin, tool), args];
    const r = spawnSync(cmd, argv, { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    if (r.status !== 0 && !allowFail) {
      const logText = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`${tool} failed: ${r.stderr?.toString() ?? ''}${logText}`);
    }
  };
  execFileSync('mkdir', ['-p', data, socketDir]);
  chmodSync(data, 0o700);
  if (root) {
    chownSync(base, owner, group);
    chownSync(data, owner, group);
    chownSync(socketDir, owner, group);
  }
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-t',
      '60',
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${socketDir} -c fsync=off`,
      'start',
    ]);
  start();
  const pidOf = (): number => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stopImmediate: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    killPostmaster: () => {
      const pid = pidOf();
      const children = (spawnSync('pgrep', ['-P', String(pid)]).stdout?.toString() ?? '')
        .split('\n')
        .filter(Boolean)
        .map(Number);
      process.kill(pid, 'SIGKILL');
      // The children notice that the postmaster is gone and exit; wait for them (a zombie counts as gone).
      const alive = (p: number) => {
        try {
          return !/^State:\s+Z/m.test(readFileSync(`/proc/${p}/status`, 'utf8'));
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && [pid, ...children].some(alive); i++) spawnSync('sleep', ['0.1']);
      // A postmaster nobody reaps stays a zombie whose pid still answers: drop its lock files.
      rmSync(join(data, 'postmaster.pid'), { force: true });
      for (const name of readdirSync(socketDir)) rmSync(join(socketDir, name), { force: true });
    },
    start,
    destroy: () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], true);
      rmSync(base, { recursive: true, force: true });
    },
  };
}
