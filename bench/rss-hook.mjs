/**
 * Preloaded with `node --import bench/rss-hook.mjs` when /usr/bin/time is
 * missing: writes the process's peak RSS in KiB to TENANTFORM_BENCH_RSS_FILE
 * when the process exits.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.TENANTFORM_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    writeFileSync(target, `${process.resourceUsage().maxRSS}\n`);
  });
}
