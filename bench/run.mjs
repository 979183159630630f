/**
 * npm run bench: measures the built CLI (dist/ through bin/tenantform.js) and
 * prints every figure next to its target; writes bench/results.json.
 * Fixtures live in bench/.work/ (removed afterwards). Figures are medians of
 * whole-process runs; a machine that is busy with other work makes them
 * slower, so results.json records the load average too.
 *
 * Usage: node bench/run.mjs [--only plan,startup,rate,latency,requests,durability,fleet,fleet-apply,fleet-100,grid,window-grid,rate-limit-timeout,mixed-groups,skew,max-rate,shared,vanished,refresh,config-change,simulate,simulate-tenant] [--keep]
 * BENCH_GRID_RUNS=3 runs each cell of the pacing grids (grid: the continuous
 * bucket; window-grid: the documented model × each Date variant on the emulator
 * and on the docs-only limiter; skew) three times (default once). Their cells
 * run concurrently, BENCH_CONCURRENCY (default 6) at a time.
 * BENCH_GRID_CELLS=1/3,2/3 runs only those cells (R/B) of the continuous grid.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  durabilityFigures,
  latencyBoundFigures,
  rateBoundFigures,
  requestFigures,
} from './apply-scenarios.mjs';
import { renderNotes, renderTable } from './figures.mjs';
import { fleetApplyFigures, fleetHundredFigures, fleetPlanFigures } from './fleet-scenarios.mjs';
import { pacingGridFigures, sharedBucketFigures, vanishedFigures } from './pacing-scenarios.mjs';
import {
  maxRateFigures,
  mixedGroupsFigures,
  skewFigures,
  timeoutBoundFigures,
  windowGridFigures,
} from './window-scenarios.mjs';
import { planFigures, startupFigures } from './local-scenarios.mjs';
import { exportFigures } from './export-scenarios.mjs';
import { configChangeFigures } from './profile-scenarios.mjs';
import { refreshFigures } from './read-scenarios.mjs';
import { simulateFileFigures, simulateTenantFigures } from './simulate-scenarios.mjs';
import { ROOT, rssMethod } from './measure.mjs';

const SUITES = {
  startup: startupFigures,
  plan: planFigures,
  export: exportFigures,
  requests: requestFigures,
  latency: latencyBoundFigures,
  rate: rateBoundFigures,
  durability: durabilityFigures,
  fleet: fleetPlanFigures,
  'fleet-apply': fleetApplyFigures,
  'fleet-100': fleetHundredFigures,
  grid: pacingGridFigures,
  'window-grid': windowGridFigures,
  'rate-limit-timeout': timeoutBoundFigures,
  'mixed-groups': mixedGroupsFigures,
  skew: skewFigures,
  'max-rate': maxRateFigures,
  shared: sharedBucketFigures,
  vanished: vanishedFigures,
  refresh: refreshFigures,
  'config-change': configChangeFigures,
  simulate: simulateFileFigures,
  'simulate-tenant': simulateTenantFigures,
};

function parseArgs(argv) {
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1].split(',') : Object.keys(SUITES);
  for (const name of only)
    if (!SUITES[name]) throw new Error(`unknown suite ${name}; known: ${Object.keys(SUITES).join(', ')}`);
  return { only, keep: argv.includes('--keep') };
}

async function main() {
  const { only, keep } = parseArgs(process.argv.slice(2));
  const work = join(ROOT, 'bench', '.work', `run-${process.pid}`);
  mkdirSync(join(work, 'states'), { recursive: true });
  const started = performance.now();
  const log = (line) =>
    process.stderr.write(`  ${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s  ${line}\n`);
  const loadBefore = loadavg();
  const figures = [];
  try {
    for (const name of only) {
      log(`running ${name}`);
      figures.push(...(await SUITES[name](join(work, name), log)));
    }
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
  const totalS = (performance.now() - started) / 1000;
  const failed = figures.filter((f) => f.pass === false);
  const notes = renderNotes(figures);
  process.stdout.write(`\n${renderTable(figures)}\n\n${notes ? `Notes:\n${notes}\n\n` : ''}`);
  process.stdout.write(
    `${figures.length} figures, ${failed.length} below target; ${totalS.toFixed(0)} s; ` +
      `load average ${loadBefore[0].toFixed(2)} before, ${loadavg()[0].toFixed(2)} after, ${cpus().length} CPUs.\n`,
  );
  const results = {
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    load_average: { before: loadBefore, after: loadavg() },
    rss_method: rssMethod,
    duration_s: totalS,
    figures: figures.map((f) => ({
      name: f.name,
      median: f.value,
      unit: f.unit,
      target: f.target ? `${f.target.op} ${f.target.value}` : null,
      pass: f.pass,
      runs: f.runs,
      ...(f.note ? { note: f.note } : {}),
    })),
  };
  writeFileSync(join(ROOT, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
