/**
 * Measuring whole processes: wall time from spawn to exit, and peak RSS.
 * Peak RSS comes from /usr/bin/time (GNU time, `%M` = max resident set in KiB)
 * when it exists; otherwise from bench/rss-hook.mjs, preloaded with --import,
 * which writes process.resourceUsage().maxRSS at exit.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = dirname(here);
export const CLI = join(ROOT, 'bin', 'tenantform.js');
const GNU_TIME = '/usr/bin/time';
const RSS_HOOK = join(here, 'rss-hook.mjs');

/** Which peak-RSS method runProcess uses: "gnu-time" or "rss-hook". */
export const rssMethod = existsSync(GNU_TIME) ? 'gnu-time' : 'rss-hook';

/**
 * Runs `node bin/tenantform.js ...args` and resolves with
 * { code, wallMs, maxRssMB, stdout, stderr }. stdout is discarded unless
 * `captureStdout`; stderr is kept (the last 4 KiB) for error reports.
 */
export function runCli(args, options = {}) {
  return runNode([CLI, ...args], options);
}

/** Runs `node ...args` (a script and its arguments); see runCli. */
export function runNode(args, { env = {}, cwd = ROOT, captureStdout = false } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'tf-bench-rss-'));
  const rssFile = join(scratch, 'rss');
  const nodeArgs = rssMethod === 'rss-hook' ? ['--import', RSS_HOOK, ...args] : args;
  const [cmd, cmdArgs] =
    rssMethod === 'gnu-time'
      ? [GNU_TIME, ['-f', '%M', '-o', rssFile, process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
  const childEnv = { ...process.env, ...env, TENANTFORM_BENCH_RSS_FILE: rssFile, NO_COLOR: '1' };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, cmdArgs, {
      cwd,
      env: childEnv,
      stdio: ['ignore', captureStdout ? 'pipe' : 'ignore', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (s) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (stderr = (stderr + s).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      let maxRssMB = null;
      try {
        const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
        if (Number.isFinite(kb) && kb > 0) maxRssMB = kb / 1024;
      } catch {
        // no figure: the process died before writing one
      }
      rmSync(scratch, { recursive: true, force: true });
      resolve({ code, wallMs, maxRssMB, stdout, stderr });
    });
  });
}

/** Like runCli, but rejects when the exit code is not one of `okCodes`. */
export async function runCliOk(args, options = {}, okCodes = [0]) {
  const result = await runCli(args, options);
  if (!okCodes.includes(result.code)) {
    throw new Error(`tenantform ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  }
  return result;
}

/** The q-quantile (0 to 1) of `values`, interpolating between the two nearest. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
