/**
 * Figures of `tenantform simulate` (issue 38): a week of a busy tenant's log
 * events (10 million, JSON lines) read from a file, timed from spawn to exit
 * with its peak memory; and `--logs tenant` against an emulator with a rate
 * limit, whose reads must keep to it like every other read. The file is
 * generated here, in a temporary directory, and removed afterwards.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { figure, info, pick, repeat } from './figures.mjs';
import { withEmulator } from './apply-scenarios.mjs';
import { runCliOk } from './measure.mjs';

const CONFIG = `rate_limit_policies:
  - { resource: oauth_authentication_api, consumer: client, consumer_selector: default, configuration: { action: block, limit: 30 } }
  - { resource: oauth_authentication_api, consumer: client, consumer_selector: third_party_clients, configuration: { action: log, limit: 20 } }
  - { resource: oauth_authentication_api, consumer: client, consumer_selector: "client_id:app-0", configuration: { action: block, limit: 8 } }
  - { resource: oauth_authentication_api, consumer: client, consumer_selector: "client_id:app-1", configuration: { action: redirect, limit: 12, redirect_uri: "https://status.example/busy" } }
`;

const APPS = [...Array.from({ length: 10 }, (_, i) => `app-${i}`), 'tpa_partner1', 'tpa_partner2'];
const TYPES = ['seacft', 'sertft', 's', 'seccft', 'ssa', 'fp', 'sapi'];
const WEEK_MS = 7 * 86_400_000;
const START = Date.parse('2026-11-16T00:00:00Z');

/** A small seeded generator: one file for one seed. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `n` events over a week, in time order but for a few seconds of jitter, as JSON lines. */
function writeEvents(file, n) {
  const random = generator(38);
  const fd = openSync(file, 'w');
  try {
    const lines = [];
    for (let i = 0; i < n; i++) {
      const at = START + Math.floor((i / n) * WEEK_MS) + Math.floor(random() * 4000) - 2000;
      const app = APPS[Math.floor(random() * random() * APPS.length)];
      const type = TYPES[Math.floor(random() * TYPES.length)];
      lines.push(
        `{"log_id":"${i}","date":"${new Date(at).toISOString()}","type":"${type}","client_id":"${app}","client_name":"Bench ${app}"}`,
      );
      if (lines.length === 50_000) {
        writeSync(fd, lines.join('\n') + '\n');
        lines.length = 0;
      }
    }
    if (lines.length > 0) writeSync(fd, lines.join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
}

export async function simulateFileFigures(work, log, { n = 10_000_000 } = {}) {
  const config = join(work, 'config');
  mkdirSync(config, { recursive: true });
  writeFileConfig(config);
  const tmp = mkdtempSync(join(tmpdir(), 'tf-bench-simulate-'));
  try {
    const file = join(tmp, 'week.jsonl');
    log(`writing ${n.toLocaleString('en-US')} events`);
    writeEvents(file, n);
    const sizeMB = statSync(file).size / 1024 / 1024;
    const runs = await repeat(
      () => runCliOk(['simulate', config, '--logs', file, '--format', 'json'], { captureStdout: true }),
      { maxRuns: 2 },
    );
    const report = JSON.parse(runs[0].stdout);
    if (report.read.events !== n) throw new Error(`simulate read ${report.read.events} events, not ${n}`);
    const walls = pick(runs, 'wallMs').map((ms) => ms / 1000);
    const figures = [
      figure(`simulate, ${n / 1e6} million events from a file: wall`, 's', walls, { op: '<', value: 60 }),
      figure(`simulate, ${n / 1e6} million events from a file: peak RSS`, 'MB', pick(runs, 'maxRssMB'), {
        op: '<',
        value: 300,
      }),
      info(
        'simulate from a file: events per second',
        'events/s',
        walls.map((w) => n / w),
      ),
      info('simulate from a file: file size', 'MB', [sizeMB]),
    ];
    log(`${figures[0].name} ${figures[0].value.toFixed(1)} s, ${figures[1].value.toFixed(0)} MB`);
    return figures;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function writeFileConfig(dir) {
  writeSyncFile(join(dir, 'policies.yaml'), CONFIG);
}

function writeSyncFile(path, text) {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * --logs tenant at the tenant's rate limit: N events in pages of 100 (and
 * one search for the oldest), R requests/s with a continuous bucket of
 * `burst`, as the rate-bound apply figure. The target is on requests / R.
 */
export async function simulateTenantFigures(work, log, { n = 40_000, rate = 20, burst = 20 } = {}) {
  const config = join(work, 'tenant-config');
  mkdirSync(config, { recursive: true });
  writeFileConfig(config);
  const random = generator(7);
  const logs = Array.from({ length: n }, (_, i) => ({
    log_id: String(i).padStart(12, '0'),
    date: new Date(START + i * 250).toISOString(),
    type: 'seacft',
    client_id: APPS[Math.floor(random() * APPS.length)],
  }));
  const runs = await repeat(
    () =>
      withEmulator(
        { api: 'full', seed: { logs }, rateLimit: { model: 'continuous', perSecond: rate, burst } },
        async (emu) => {
          const before = emu.stats();
          const result = await runCliOk(
            ['simulate', config, '--logs', 'tenant', '--api', 'full', '--base-url', emu.baseUrl],
            { env: { TENANTFORM_TOKEN: emu.token } },
          );
          const after = emu.stats();
          const requests = after.requests - before.requests;
          const status429 = (after.byStatus['429'] ?? 0) - (before.byStatus['429'] ?? 0);
          return { wallMs: result.wallMs, requests, status429 };
        },
      ),
    { maxRuns: 2 },
  );
  const walls = pick(runs, 'wallMs').map((ms) => ms / 1000);
  const figures = [
    figure(
      `simulate --logs tenant: wall ÷ (requests/R), ${n.toLocaleString('en-US')} events, R=${rate}/s`,
      'ratio',
      runs.map((r, i) => walls[i] / (r.requests / rate)),
      { op: '<=', value: 1.05 },
    ),
    info('simulate --logs tenant: wall', 's', walls),
    info('simulate --logs tenant: requests', 'count', pick(runs, 'requests')),
    figure(
      'simulate --logs tenant: 429 share of requests',
      '%',
      runs.map((r) => (100 * r.status429) / r.requests),
      {
        op: '<=',
        value: 1,
      },
    ),
  ];
  log(`${figures[0].name} ${figures[0].value.toFixed(3)} (${figures[1].value.toFixed(1)} s)`);
  return figures;
}
