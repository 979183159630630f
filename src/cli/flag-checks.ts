/**
 * The flags several commands share, checked before a command runs, whether
 * or not this run would use them: `plan --max-rate abc` is as wrong without
 * --refresh as with it, and a wrong value is said at once, naming the flag,
 * instead of when (or if) a request is about to go.
 */
import { pacingOptions, parseCount, parseDuration } from './context.js';

/** Bounds of the counts commands take, as the commands that use them check them. */
const COUNTS: readonly (readonly [key: string, flag: string, min: number, max: number])[] = [
  ['parallelism', '--parallelism', 1, 256],
  ['envParallelism', '--env-parallelism', 1, 256],
];

/** Throws a CliError naming the first shared flag of `flags` (a command's options) whose value is wrong. */
export function checkSharedFlags(flags: Record<string, unknown>): void {
  const text = (key: string): string | undefined =>
    typeof flags[key] === 'string' ? (flags[key] as string) : undefined;
  pacingOptions({
    maxRps: text('maxRps'),
    maxRate: text('maxRate'),
    rateLimitTimeout: text('rateLimitTimeout'),
  });
  const lockTimeout = text('lockTimeout');
  if (lockTimeout !== undefined) parseDuration(lockTimeout, '--lock-timeout');
  for (const [key, flag, min, max] of COUNTS) parseCount(text(key), flag, min, max);
}
