/**
 * Pacing on the service's documented rate limit model (issue 28): the
 * emulator's default window model — burst B, the rate added in whole steps at
 * the top of each window of the tenant's clock, never above B — against a
 * separate `tenantform apply` process, with a fresh emulator and state per run.
 *
 * The floor: the bucket is full at the first request, so B requests go at
 * once; then min(R, B) more at each window boundary of the tenant's clock. The
 * last of N requests cannot come before boundary k = ⌈(N − B) / min(R, B)⌉
 * after the first request's window, and windowFloorMs computes that time
 * exactly from when the first request reached the emulator's limiter (its
 * stats, on the tenant's clock); when creates failed, for the requests the
 * emulator accepted. Figures per cell: the HTTP phase (first to
 * last request at the emulator) ÷ floor, the whole process ÷ floor, the 429
 * share and the operations not recorded; targets ≤ 1.05, ≤ 1 %, 0.
 *
 * - the grid: the published tiers, a rate above the burst, a 3-second window,
 *   the per-minute example with its window scaled down and as it is (a
 *   true 60-second window), each × every
 *   variant of the Date header (issue 34) on two limiters that share no
 *   code: the emulator (a front end's second, refreshed once a second; exact;
 *   none; a front end a second ahead or behind) and one written from the
 *   service's docs alone (test/helpers/doc-limiter.mjs: Node's own Date,
 *   exact, none, exact from a front end 800 ms behind). Independent cells run
 *   concurrently (BENCH_CONCURRENCY, default 6): they mostly wait;
 * - a skewed clock: the tenant's clock a few seconds ahead of and behind this
 *   machine's (the emulator's clockSkewMs);
 * - apply --max-rate 30% on Enterprise production: the rate it keeps.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyOnce, configDir, freshState, policiesOnly, withEmulator } from './apply-scenarios.mjs';
import { startDocLimiter } from '../test/helpers/doc-limiter.mjs';
import { permissionAt, policyAt, writeConfig } from './generate.mjs';
import { figure, info } from './figures.mjs';
import { ROOT, runCli } from './measure.mjs';

const { RATE_LIMIT_TIERS, resolveRateLimit } = await import(
  pathToFileURL(join(ROOT, 'dist', 'emulator', 'index.js')).href
);

/** How much the per-minute example's 60 s window is shortened: 60 s → 5 s. */
export const MINUTE_SCALE = 12;
const minute = RATE_LIMIT_TIERS['users-read-per-minute'];

/**
 * The cells: `limit` is the emulator's rateLimit option; N is chosen so that
 * the floor is 20 to 60 s (60 to 120 s for the true minute) and one 429 stays
 * under 1 % (N ≥ 100).
 */
export const WINDOW_CELLS = [
  { name: 'free (B=2, 2/s)', limit: { tier: 'free' }, n: 100 },
  { name: 'enterprise-nonprod (B=10, 2/s)', limit: { tier: 'enterprise-nonprod' }, n: 100 },
  { name: 'enterprise-prod (B=50, 16/s)', limit: { tier: 'enterprise-prod' }, n: 450 },
  { name: 'private-cloud-20 (B=20, 20/s)', limit: { tier: 'private-cloud-20' }, n: 520 },
  { name: 'rate above the burst (B=10, 25/s)', limit: { perSecond: 25, burst: 10 }, n: 260 },
  { name: 'a 3-second window (B=10, 6 per 3 s)', limit: { perWindow: 6, burst: 10, windowSec: 3 }, n: 100 },
  {
    name: `users-read-per-minute (B=${minute.burst}, ${minute.perWindow}/60 s), window scaled to ${60 / MINUTE_SCALE} s`,
    limit: { perWindow: minute.perWindow, burst: minute.burst, windowSec: 60 / MINUTE_SCALE },
    n: 280,
    note:
      `the published per-minute example with every time divided by ${MINUTE_SCALE}: the same burst and step, ` +
      `a ${60 / MINUTE_SCALE} s window instead of 60 s, so Reset is up to a window ahead and ${minute.burst} requests come at each window's top, ` +
      `as at 60 s but in 1/${MINUTE_SCALE} of the time`,
  },
  {
    name: `users-read-per-minute (B=${minute.burst}, ${minute.perWindow}/60 s), a true 60-second window`,
    limit: { perWindow: minute.perWindow, burst: minute.burst, windowSec: 60 },
    n: minute.burst * 3,
    note:
      `the published per-minute example as it is: ${minute.burst} requests at once, then ${minute.burst} at each of the next two ` +
      'minutes of the tenant clock (a step never above the burst); Reset up to a minute ahead; the floor is 60 to 120 s',
  },
];

/** Skewed tenant clocks (ms), one ahead and one behind, on the Enterprise non-production tier. */
export const SKEWS_MS = [2700, -3400];
const SKEW_CELL = WINDOW_CELLS[1];

/** Window boundaries the last of `n` requests must wait for after the first request's window. */
export function windowsNeeded({ burst, perWindow }, n) {
  return Math.ceil(Math.max(0, n - burst) / Math.min(perWindow, burst));
}

/** The least first-to-last time, in ms, when the first request reached the limiter at `firstAtMs` (tenant clock). */
export function windowFloorMs(shape, n, firstAtMs) {
  const w = shape.windowSec * 1000;
  const k = windowsNeeded(shape, n);
  return k === 0 ? 0 : (Math.floor(firstAtMs / w) + k) * w - firstAtMs;
}

/** The floor of a cell whose first request comes at the top of a window (its longest). */
export function nominalFloorS(cell) {
  const shape = resolveRateLimit(cell.limit);
  return windowsNeeded(shape, cell.n) * shape.windowSec;
}

function recordedIn(statePath) {
  try {
    return (JSON.parse(readFileSync(statePath, 'utf8')).resources ?? []).length;
  } catch {
    return 0; // no state file: nothing recorded
  }
}

/** The Date variants of the grid: which limiter, and how it stamps Date. */
export const DATE_VARIANTS = [
  { server: 'emulator', name: "a front end's second (default)", options: {} },
  { server: 'emulator', name: 'exact', options: { dateHeader: 'exact' } },
  { server: 'emulator', name: 'absent', options: { dateHeader: 'absent' } },
  { server: 'emulator', name: 'front end 1 s ahead', options: { frontEndOffsetMs: 1000 } },
  { server: 'emulator', name: 'front end 1 s behind', options: { frontEndOffsetMs: -1000 } },
  { server: 'docs', name: "Node's own", options: { date: 'node' } },
  { server: 'docs', name: 'exact', options: { date: 'exact' } },
  { server: 'docs', name: 'absent', options: { date: 'absent' } },
  {
    server: 'docs',
    name: 'exact, front end 0.8 s behind',
    options: { date: 'exact', frontEndOffsetMs: -800 },
  },
];

/** Runs `fn` with a fresh limiter for `cell`: the emulator, or the docs-only limiter. */
async function withServer(cell, { server = 'emulator', clockSkewMs = 0, options = {} }, fn) {
  if (server === 'emulator') return withEmulator({ rateLimit: cell.limit, clockSkewMs, ...options }, fn);
  const { burst, perWindow, windowSec } = resolveRateLimit(cell.limit);
  const limiter = await startDocLimiter({ limit: { burst, perWindow, windowSec }, ...options });
  try {
    return await fn(limiter);
  } finally {
    await limiter.stop();
  }
}

/** One apply of a cell's N creates against a fresh limiter; the ratios, 429s and failures it showed. */
export async function runWindowCell(work, cell, { clockSkewMs = 0, args = [], dir, server, options } = {}) {
  const configPath = dir ?? configDir(work, `window-${cell.n}`, policiesOnly(cell.n));
  const statePath = freshState(work);
  return withServer(cell, { server, clockSkewMs, options }, async (emu) => {
    const r = await applyOnce(emu, configPath, { statePath, args, tolerate: true });
    const { firstRequestAt, lastRequestAt, byStatus } = emu.stats();
    // Failed creates were never admitted: the floor is that of the requests that were.
    const accepted = byStatus['201'] ?? 0;
    const floorMs = windowFloorMs(emu.rateLimit, accepted, firstRequestAt);
    const httpMs = lastRequestAt - firstRequestAt;
    const recorded = recordedIn(statePath);
    return {
      code: r.code,
      floorMs,
      httpMs,
      httpRatio: httpMs / floorMs,
      processRatio: r.wallMs / floorMs,
      share429: (100 * r.status429) / r.requests,
      status429: r.status429,
      failed: cell.n - recorded,
      accepted,
      recorded,
    };
  });
}

/** Runs `tasks` (functions returning promises), at most `limit` at once; their results in order. */
export async function pooled(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const concurrency = () => Number(process.env.BENCH_CONCURRENCY ?? 6);

/** A cell's four figures (named after `label`) from its runs' results. */
function figuresOf(label, cell, results, note = '') {
  const of = (key) => results.map((r) => r[key]);
  return [
    figure(
      `${label} N=${cell.n}: HTTP phase ÷ floor`,
      'ratio',
      of('httpRatio'),
      { op: '<=', value: 1.05 },
      note,
    ),
    info(`${label}: whole process ÷ floor`, 'ratio', of('processRatio')),
    figure(`${label}: 429 share`, '%', of('share429'), { op: '<=', value: 1 }),
    figure(`${label}: failed operations`, 'count', of('failed'), { op: '=', value: 0 }),
  ];
}

/** Runs a cell `runs` times, one after the other; its four figures (named after `label`). */
async function cellFigures(work, label, cell, runs, options = {}, note = '') {
  const dir = configDir(work, `window-${label.replace(/\W+/g, '-')}`, policiesOnly(cell.n));
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await runWindowCell(work, cell, { ...options, dir }));
  return { results, figures: figuresOf(label, cell, results, note) };
}

/** One line of the summary table for a cell's figures. */
function tableLine(label, n, floorS, [http, whole, share, failed]) {
  const ok = http.pass && share.pass && failed.pass ? 'ok' : 'MISS';
  return `${label.padEnd(96)} N=${String(n).padEnd(4)} floor ${floorS.toFixed(1).padStart(5)} s  HTTP ${http.value.toFixed(3)}  process ${whole.value.toFixed(3)}  429 ${share.value.toFixed(1)}%  failed ${failed.value}  ${ok}`;
}

const runsFromEnv = () => Number(process.env.BENCH_GRID_RUNS ?? 1);

const GRID_NOTE =
  'floor: the burst at once, then min(R, B) at each window boundary of the limiter clock after the first request (computed from its time at the limiter) for the requests it accepted (N unless some failed); HTTP phase = first to last request at the limiter; each cell × Date variant on the emulator and on the docs-only limiter (test/helpers/doc-limiter.mjs)';

/**
 * The documented-model grid × every Date variant on both limiters; `runs` per
 * cell (median), BENCH_GRID_RUNS or 1. Cells run concurrently, each on its own
 * limiter; the runs of one cell one after the other.
 */
export async function windowGridFigures(
  work,
  log,
  { runs = runsFromEnv(), cells = WINDOW_CELLS, variants = DATE_VARIANTS } = {},
) {
  const jobs = variants.flatMap((variant) => cells.map((cell) => ({ variant, cell })));
  const tasks = jobs.map(({ variant, cell }) => async () => {
    const label = `window ${variant.server === 'emulator' ? 'emulator' : 'docs-only limiter'}, Date ${variant.name}, ${cell.name}`;
    const options = { server: variant.server, options: variant.options };
    const note = cell.note ?? (jobs[0].cell === cell && jobs[0].variant === variant ? GRID_NOTE : '');
    const { figures, results } = await cellFigures(work, label, cell, runs, options, note);
    const line = tableLine(
      `${variant.server.padEnd(8)} ${variant.name.padEnd(31)} ${cell.name}`,
      cell.n,
      results[0].floorMs / 1000,
      figures,
    );
    log(line);
    return { figures, line };
  });
  // The longest cells first (they mostly sleep): the grid ends about when its longest cell does.
  const order = jobs
    .map((_, i) => i)
    .sort((a, b) => nominalFloorS(jobs[b].cell) - nominalFloorS(jobs[a].cell));
  const finished = await pooled(
    order.map((i) => tasks[i]),
    concurrency(),
  );
  const done = new Array(jobs.length);
  order.forEach((i, k) => (done[i] = finished[k]));
  log(
    'window-model grid: limiter, Date, cell: HTTP phase ÷ floor, whole process ÷ floor, 429 share, failed (targets ≤ 1.05, -, ≤ 1%, 0)',
  );
  for (const { line } of done) log(line);
  return done.flatMap((d) => d.figures);
}

/** The tenant's clock a few seconds off this machine's, both ways, on Enterprise non-production. */
export async function skewFigures(
  work,
  log,
  { runs = runsFromEnv(), cell = SKEW_CELL, skews = SKEWS_MS } = {},
) {
  const figures = [];
  for (const skew of skews) {
    const label = `skewed clock ${skew > 0 ? '+' : ''}${skew / 1000} s, ${cell.name}`;
    const note = 'the emulator clockSkewMs: its windows, X-RateLimit-Reset and Date in the tenant time';
    const { figures: f, results } = await cellFigures(work, label, cell, runs, { clockSkewMs: skew }, note);
    figures.push(...f);
    log(tableLine(label, cell.n, results[0].floorMs / 1000, f));
  }
  return figures;
}

/** Whether `apply --help` (its text) offers --max-rate. */
export function offersMaxRate(helpText) {
  return /--max-rate\b/.test(helpText);
}

const MAX_RATE_NAME = 'max-rate 30% on enterprise-prod (B=50, 16/s)';

/** The row printed while apply has no --max-rate: no figures, one note. */
export function maxRateMissing() {
  return [
    info(
      `${MAX_RATE_NAME}: not run`,
      'count',
      [],
      'apply has no --max-rate in this build yet; the row runs once the flag exists',
    ),
  ];
}

/**
 * apply --max-rate 30% on the Enterprise production tier, about 30 s: the rate
 * it keeps, (N − 1) requests over the first-to-last time at the emulator,
 * against 0.3 × 16/s (target within 5 %), and no 429.
 */
export async function maxRateFigures(work, log, { share = 0.3, seconds = 30 } = {}) {
  const help = await runCli(['apply', '--help'], { captureStdout: true });
  if (!offersMaxRate(help.stdout)) {
    log(`${MAX_RATE_NAME}: apply has no --max-rate yet; row skipped`);
    return maxRateMissing();
  }
  const tier = RATE_LIMIT_TIERS['enterprise-prod'];
  const target = share * tier.perWindow;
  const cell = {
    name: 'enterprise-prod',
    limit: { tier: 'enterprise-prod' },
    n: Math.round(target * seconds) + 1,
  };
  const r = await runWindowCell(work, cell, { args: ['--max-rate', `${share * 100}%`] });
  const rate = (cell.n - r.failed - 1) / (r.httpMs / 1000);
  const figures = [
    figure(
      `${MAX_RATE_NAME}, N=${cell.n}: |rate ÷ (${share} × ${tier.perWindow}/s) − 1|`,
      '%',
      [100 * Math.abs(rate / target - 1)],
      { op: '<=', value: 5 },
      'rate = (requests recorded − 1) ÷ first-to-last request time at the emulator',
    ),
    info(`${MAX_RATE_NAME}: rate`, 'req/s', [rate]),
    figure(`${MAX_RATE_NAME}: 429 responses`, 'count', [r.status429], { op: '=', value: 0 }),
    figure(`${MAX_RATE_NAME}: failed operations`, 'count', [r.failed], { op: '=', value: 0 }),
  ];
  log(
    `${MAX_RATE_NAME}: ${rate.toFixed(2)}/s against ${target.toFixed(2)}/s, ${r.status429} × 429, ${r.failed} failed`,
  );
  return figures;
}

/**
 * `apply --rate-limit-timeout 5s` against a tenant that answers only 429 with
 * Retry-After an hour away (another client took its bucket of one request an
 * hour): the whole process, target within 10 s (the timeout and one
 * request's time, with the process's start and end).
 */
export async function timeoutBoundFigures(work, log) {
  const dir = configDir(work, 'timeout-bound', policiesOnly(5));
  const limit = { perWindow: 1, windowSec: 3600, burst: 1 };
  const r = await withEmulator({ rateLimit: limit, retryAfter: true }, async (emu) => {
    const taken = await fetch(`${emu.baseUrl}/rate-limit-policies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(policiesOnly(6).policies[5]),
    });
    await taken.text();
    return applyOnce(emu, dir, {
      statePath: freshState(work),
      args: ['--rate-limit-timeout', '5s'],
      tolerate: true,
    });
  });
  const seconds = r.wallMs / 1000;
  log(
    `--rate-limit-timeout 5s, a tenant answering only 429 (Retry-After 3600): ended after ${seconds.toFixed(1)} s, exit ${r.code}`,
  );
  return [
    figure(
      '--rate-limit-timeout 5s vs a tenant answering only 429 (Retry-After: 3600): whole process',
      's',
      [seconds],
      { op: '<=', value: 10 },
      'the deadline is the first 429 plus the timeout, and no wait passes it',
    ),
  ];
}

const MIXED = {
  route: 'POST /api/v2/users/{id}/permissions',
  tenant: { burst: 10, perWindow: 4, windowSec: 1 },
  group: { burst: 4, perWindow: 2, windowSec: 1 },
  policies: 110,
  permissions: 54,
};

/**
 * A mixed apply across two endpoint groups with different limits: policies on
 * the tenant's bucket (B=10, 4/s), permissions on a group of their own (B=4,
 * 2/s), each about 25 s of floor, on the docs-only limiter (which counts each
 * group's requests) and on the emulator (whole-run 429s and failures). Per
 * group: HTTP phase ÷ floor, 429 share; targets as the grid's.
 */
export async function mixedGroupsFigures(work, log) {
  const dir = join(work, 'mixed-groups');
  writeConfig(dir, {
    policies: Array.from({ length: MIXED.policies }, (_, i) => policyAt(i)),
    permissions: Array.from({ length: MIXED.permissions }, (_, i) => permissionAt(i, 1)),
    profiles: [],
  });
  const total = MIXED.policies + MIXED.permissions;
  const docs = await startDocLimiter({
    limit: MIXED.tenant,
    date: 'node',
    groups: [{ name: 'users_write', limit: MIXED.group, routes: [MIXED.route] }],
  });
  const emulator = withEmulator(
    {
      rateLimit: {
        ...MIXED.tenant,
        groups: [{ name: 'users_write', routes: [MIXED.route], ...MIXED.group }],
      },
    },
    async (emu) => {
      const statePath = freshState(work);
      const r = await applyOnce(emu, dir, { statePath, tolerate: true });
      return { ...r, failed: total - recordedIn(statePath) };
    },
  );
  const docsRun = (async () => {
    try {
      const statePath = freshState(work);
      const r = await applyOnce(docs, dir, { statePath, tolerate: true });
      return { ...r, failed: total - recordedIn(statePath), groups: docs.stats().byGroup };
    } finally {
      await docs.stop();
    }
  })();
  const [onEmulator, onDocs] = await Promise.all([emulator, docsRun]);
  const figures = [];
  for (const [name, shape] of [
    ['tenant', MIXED.tenant],
    ['users_write', MIXED.group],
  ]) {
    const g = onDocs.groups[name] ?? { requests: 0, byStatus: {} };
    const accepted = g.byStatus['201'] ?? 0;
    const floorMs = windowFloorMs(shape, accepted, g.firstRequestAt);
    const ratio = (g.lastRequestAt - g.firstRequestAt) / floorMs;
    const share = (100 * (g.byStatus['429'] ?? 0)) / g.requests;
    const label = `mixed apply, docs-only limiter, group ${name} (B=${shape.burst}, ${shape.perWindow}/s), ${accepted} requests`;
    figures.push(
      figure(`${label}: HTTP phase ÷ floor`, 'ratio', [ratio], { op: '<=', value: 1.05 }),
      figure(`${label}: 429 share`, '%', [share], { op: '<=', value: 1 }),
    );
    log(
      `${label}: HTTP ${ratio.toFixed(3)} × floor (${(floorMs / 1000).toFixed(1)} s), 429 ${share.toFixed(1)}%`,
    );
  }
  for (const [where, r] of [
    ['docs-only limiter', onDocs],
    ['emulator', onEmulator],
  ]) {
    const share = (100 * r.status429) / r.requests;
    figures.push(
      figure(`mixed apply, ${where}: 429 share, both groups`, '%', [share], { op: '<=', value: 1 }),
      figure(`mixed apply, ${where}: failed operations`, 'count', [r.failed], { op: '=', value: 0 }),
    );
    log(`mixed apply, ${where}: ${r.requests} requests, 429 ${share.toFixed(1)}%, ${r.failed} failed`);
  }
  return figures;
}
