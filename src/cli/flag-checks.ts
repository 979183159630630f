/**
 * The flags several commands share, checked before a command runs, whether
 * or not this run would use them: `plan --max-rate abc` is as wrong without
 * --refresh as with it, and a wrong value is said at once, naming the flag,
 * instead of when (or if) a request is about to go.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from './io.js';
import { pacingOptions, parseCount, parseDuration } from './context.js';

/** Bounds of the counts commands take, as the commands that use them check them. */
const COUNTS: readonly (readonly [key: string, flag: string, min: number, max: number])[] = [
  ['parallelism', '--parallelism', 1, 256],
  ['envParallelism', '--env-parallelism', 1, 256],
];

/** The flags that name a file to read (or, for some, a directory): never a FIFO or a device. */
const PATH_FLAGS: readonly (readonly [key: string, flag: string])[] = [
  ['state', '--state'],
  ['tokenFile', '--token-file'],
  ['varFile', '--var-file'],
  ['usersFile', '--users-file'],
  ['fromTerraform', '--from-terraform'],
  ['fromDeployCli', '--from-deploy-cli'],
  ['users', '--users'],
  ['seed', '--seed'],
  ['data', '--data'],
];

/** What a path is when it is neither a regular file nor a directory; null otherwise (or when it does not exist). */
function oddKind(path: string): string | null {
  let info;
  try {
    info = statSync(path);
  } catch {
    return null; // missing or unreadable: the command that reads it says so
  }
  if (info.isFile() || info.isDirectory()) return null;
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Refuses a flag's path that is a FIFO, a device or a socket before anything
 * opens it: reading one waits for a writer that never comes (or reads forever).
 * Relative paths are taken from `cwd`.
 */
function checkPaths(flags: Record<string, unknown>, cwd: string): void {
  for (const [key, flag] of PATH_FLAGS) {
    const value = flags[key];
    const paths = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    for (const path of paths) {
      if (typeof path !== 'string') continue;
      const kind = oddKind(resolve(cwd, path));
      if (kind) throw new CliError(`${flag} ${path} is ${kind}, not a regular file; nothing was read`);
    }
  }
}

/** Throws a CliError naming the first shared flag of `flags` (a command's options) whose value is wrong. */
export function checkSharedFlags(flags: Record<string, unknown>, cwd: string): void {
  checkPaths(flags, cwd);
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
