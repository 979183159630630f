// Kept to syntax that old Node versions parse, like the rest of bin/.
import { setFlagsFromString } from 'node:v8';

/**
 * Keep V8's young generation at its start size for the whole run.
 *
 * V8 doubles the young generation whenever a scavenge finds most of it still
 * alive, up to two 64 MB halves. A plan keeps most of what it allocates (the
 * config, the state, the changes), so on a large tenant the young generation
 * reached its ceiling early and stayed there: about a third of the peak memory
 * of a 100,000-resource plan. With growth factor 1 the survivors move on to the
 * old generation at once and the young generation stays at a few megabytes;
 * the CPU time spent was the same in our runs (docs/performance.md).
 *
 * This flag, unlike --max-semi-space-size, is read each time V8 would grow
 * the young generation, so setting it after start-up takes effect (Node keeps
 * V8's flags writable). A V8 that ignored it would only cost memory, which
 * test/heap.test.ts would show. A size the user gave Node for the young
 * generation (on its command line or in NODE_OPTIONS) is left alone.
 *
 * @param {readonly string[]} execArgv
 * @param {string | undefined} nodeOptions
 * @param {(flags: string) => void} [set] sets V8 flags (a test's probe; by default V8's own)
 * @returns {boolean} whether the flag was set
 */
export function keepYoungGenerationSmall(execArgv, nodeOptions, set) {
  var given = execArgv.join(' ') + ' ' + (nodeOptions || '');
  if (/--((max|min)[-_])?semi[-_]space[-_]/.test(given)) return false;
  (set || setFlagsFromString)('--semi-space-growth-factor=1');
  return true;
}

/**
 * Puts the growth factor back to V8's default (2), before the code cache is
 * made at exit (bin/code-cache.js): V8 refuses cached code made under other
 * flag values than those of the run reading it, and the next run reads it
 * before setting the flag. A V8 with another default would have every
 * run's cache refused (a test of the built CLI fails then).
 *
 * @param {(flags: string) => void} [set]
 */
export function restoreYoungGenerationGrowth(set) {
  (set || setFlagsFromString)('--semi-space-growth-factor=2');
}
