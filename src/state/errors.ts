import { holderStatus } from './lock-holder.js';
import type { LockInfo } from './types.js';
import { joined, plainText, setting, words, type Wording } from '../resources/settings.js';

export { unknownHolder } from './lock-holder.js';

/**
 * Stable codes of state failures:
 * - STATE_CORRUPT: a stored document or journal cannot be parsed or is invalid; it was left untouched.
 * - STATE_UNKNOWN_VERSION: a stored document or journal entry has a format version this build cannot read.
 * - STATE_CONFLICT: a compare-and-set write found another lineage or serial than expected.
 * - STATE_INVALID: the caller asked to store a document that breaks the state schema (a bug).
 * - STATE_IO: reading or writing the backing storage failed.
 * - STATE_KEY: the state's plan key cannot be used (others can read it, or it is damaged).
 * - STATE_HARD_LINKED: the state file has another name (a hard link), which its lock cannot cover.
 */
export type StateErrorCode =
  | 'STATE_CORRUPT'
  | 'STATE_UNKNOWN_VERSION'
  | 'STATE_CONFLICT'
  | 'STATE_INVALID'
  | 'STATE_IO'
  | 'STATE_KEY'
  | 'STATE_HARD_LINKED';

export class StateError extends Error {
  override readonly name = 'StateError';

  /** The message with the settings it names as data (src/cli words them with flags). */
  readonly wording?: Wording;

  constructor(
    readonly code: StateErrorCode,
    message: string | Wording,
    options?: { cause?: unknown },
  ) {
    super(typeof message === 'string' ? message : plainText(message), options);
    if (typeof message !== 'string') this.wording = message;
  }
}

/** Thrown when another holder has the state lock; `holder` says who, for what and since when. */
export class LockError extends Error {
  override readonly name = 'LockError';
  readonly code = 'STATE_LOCKED';
  /** The message with the settings it names as data (src/cli words them with flags). */
  readonly wording: Wording;

  constructor(
    readonly holder: LockInfo,
    where: string,
  ) {
    const wording = lockMessage(holder, where);
    super(plainText(wording));
    this.wording = wording;
  }
}

function lockMessage(holder: LockInfo, where: string): Wording {
  if (holder.id === 'unknown') {
    return words`state ${where} is locked by "unknown" (the lock record cannot be read); wait, or run tenantform force-unlock if no tenantform process is using this state`;
  }
  const head = `state ${where} is locked by ${holder.command} (pid ${holder.pid} on host ${holder.host}) since ${holder.since}`;
  if (holderStatus(holder) === 'gone') {
    // Only when a takeover could not finish (another one is under way, or one was killed half-way).
    return words`${head}; that process is no longer running on this host (killed?), so the lock is stale: run tenantform force-unlock, then retry`;
  }
  return words`${head}; wait (${setting('lockTimeout')} 5m), or run tenantform force-unlock if that process is gone`;
}

/** Wraps an unexpected I/O failure into STATE_IO, naming what was being done. */
const IO_WORDS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

/** A file-system error in words, with its code for searching: "permission denied (EACCES)". */
export function ioReason(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && IO_WORDS[code]) return `${IO_WORDS[code]} (${code})`;
  return cause instanceof Error ? cause.message : String(cause);
}

const PERMISSION_ADVICE = words`check that this user may read and write there (permissions, and attributes such as chattr +i), or keep the state elsewhere with ${setting('state')} FILE`;

/** What to do about a file-system failure, by its code; nothing when there is nothing general to say. */
const IO_ADVICE: Record<string, Wording> = {
  EACCES: PERMISSION_ADVICE,
  EPERM: PERMISSION_ADVICE,
  EROFS: words`the file system is mounted read-only: keep the state on a writable one with ${setting('state')} FILE`,
  ENOSPC: words`free some space on that device, then run the command again`,
  EDQUOT: words`the disk quota is used up: free some space, then run the command again`,
};

/** A file-system failure while doing `action`, with what to do about it (a setting it names kept as data). */
export function ioError(action: string, cause: unknown): StateError {
  if (cause instanceof StateError) return cause;
  const detail = ioReason(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  const advice = typeof code === 'string' ? IO_ADVICE[code] : undefined;
  const message = `could not ${action}: ${detail}`;
  return new StateError('STATE_IO', advice ? joined(message, '; ', advice) : message, { cause });
}
