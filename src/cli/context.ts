/**
 * Shared command plumbing: the state flags as a request, the run layer's
 * view of a command's io, durations, numbers. Everything here turns flags
 * into values or a CliError naming the flag.
 */
import { isAbsolute, resolve } from 'node:path';
import { CliError, type CommandIO } from './io.js';
import type { Pacing, RunIO, StateRequest } from '../run/requests.js';
import { flagOf, noticeText } from './run-words.js';
import type { ApplyFlags } from './definitions.js';

/**
 * The flags that say where the state is and how to lock it, as the commands
 * that have them define them (definitions.ts); apply's --debug also makes the
 * pg backend log its statements' outcomes (never the password).
 */
export type StateFlags = Partial<
  Pick<ApplyFlags, 'state' | 'backend' | 'backendConfig' | 'workspace' | 'lockTimeout' | 'debug'>
>;

export function absolute(path: string, io: CommandIO): string {
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/** The state the flags name, as a run takes it (state-store.ts in src/run). */
export function stateRequestOf(flags: StateFlags): StateRequest {
  return {
    ...(flags.state !== undefined ? { file: flags.state } : {}),
    ...(flags.backend !== undefined ? { backend: flags.backend as 'file' | 'pg' } : {}),
    ...(flags.backendConfig !== undefined ? { backendConfig: flags.backendConfig } : {}),
    ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
    ...(flags.debug ? { debug: true } : {}),
  };
}

/** The run layer's view of a command's io: its notices worded on stderr (run-words.ts). */
export function runIO(io: CommandIO): RunIO {
  return {
    env: io.env,
    cwd: io.cwd,
    ...(io.signal ? { signal: io.signal } : {}),
    ...(io.openFileStore ? { openFileStore: io.openFileStore } : {}),
    notice: (notice) => {
      const text = noticeText(notice);
      if (text !== '') io.stderr.write(text);
    },
    settingNames: flagOf,
  };
}

/** --lock-timeout in ms (0s unless given). */
export function lockTimeoutOf(flags: Pick<StateFlags, 'lockTimeout'>): number {
  return parseDuration(flags.lockTimeout ?? '0s', '--lock-timeout');
}

/** Parses "30s", "2m", "500ms", "1h" or a bare number of seconds. */
export function parseDuration(value: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new CliError(`${flag} must be a duration such as 30s, 2m or 500ms (got "${value}")`);
  const n = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}

/** Parses a whole number within bounds, naming the flag when it is not one. */
export function parseCount(
  value: string | undefined,
  flag: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new CliError(`${flag} must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

/** Parses a positive number (fractions allowed) up to `max`, naming the flag when it is not one. */
export function parseRate(value: string | undefined, flag: string, max = Infinity): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > max) {
    const bound = Number.isFinite(max) ? ` at most ${max}` : '';
    throw new CliError(`${flag} must be a positive number${bound} (got "${value}")`);
  }
  return n;
}

/** Parses a number (negative and fractional allowed), naming the flag when it is not one. */
export function parseNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new CliError(`${flag} must be a number (got "${value}")`);
  return n;
}

/** Parses a percentage such as 30% or 12.5% into a fraction in (0, 1], naming the flag when it is not one. */
export function parsePercent(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*%$/.exec(value.trim());
  const n = match ? Number(match[1]) : NaN;
  if (!(n > 0 && n <= 100)) {
    throw new CliError(
      `${flag} must be a percentage above 0% and at most 100%, with its % sign, such as 30% (got "${value}")`,
    );
  }
  return n / 100;
}

/** The flags of the commands that send requests about how fast to go and how long to wait out 429s. */
export interface PacingFlags {
  maxRps?: string;
  maxRate?: string;
  rateLimitTimeout?: string;
}

/** The API client's pacing options from those flags; throws a CliError naming a bad one. */
export function pacingOptions(flags: PacingFlags): Pacing {
  const maxRps = parseRate(flags.maxRps, '--max-rps');
  const share = parsePercent(flags.maxRate, '--max-rate');
  const timeout = flags.rateLimitTimeout;
  return {
    ...(maxRps !== undefined ? { maxRps } : {}),
    ...(share !== undefined ? { share } : {}),
    ...(timeout !== undefined
      ? { retry: { rateLimitTimeoutMs: parseDuration(timeout, '--rate-limit-timeout') } }
      : {}),
  };
}
