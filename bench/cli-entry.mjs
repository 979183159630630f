/**
 * The CLI as the durability figure runs it: the same main() that
 * bin/tenantform.js runs, with the file state store injected through the
 * CommandIO seam. With BENCH_JOURNAL_FSYNC=0 the store skips the fsync of
 * journal appends (the journal is still written); the shipped CLI has no such
 * switch. Both sides of the figure start through this file, so they differ in
 * that one setting only. With BENCH_SYNC_STATS=FILE, the journal's fsyncs are
 * timed and FILE gets their count and latency (median, p99, total) at the end.
 */
import { writeFileSync } from 'node:fs';
import { main } from '../dist/cli/main.js';
import { createFileStateStore } from '../dist/state/index.js';

const fsyncJournal = process.env.BENCH_JOURNAL_FSYNC !== '0';
const statsFile = process.env.BENCH_SYNC_STATS;
const latencies = [];
const sync = async (handle, target) => {
  const started = performance.now();
  await handle.sync();
  if (target === 'journal') latencies.push(performance.now() - started);
};

process.exitCode = await main(process.argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  openFileStore: (path) => createFileStateStore(path, { fsyncJournal, ...(statsFile ? { sync } : {}) }),
});

if (statsFile) {
  latencies.sort((a, b) => a - b);
  const at = (q) =>
    latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const totalMs = latencies.reduce((sum, ms) => sum + ms, 0);
  writeFileSync(
    statsFile,
    JSON.stringify({ count: latencies.length, p50Ms: at(0.5), p99Ms: at(0.99), totalMs }),
  );
}
