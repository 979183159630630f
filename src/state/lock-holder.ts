import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LockInfo } from './types.js';

/**
 * Whether the process named by a lock is still running. A lock records the
 * holder's pid and host, and where the system says so (Linux /proc) its pid
 * namespace and start time, so that a pid reused by another process, or seen
 * from another container, is never mistaken for the holder.
 */

/** The holder reported for a lock whose record cannot be read. */
export function unknownHolder(): LockInfo {
  return { id: 'unknown', pid: 0, host: 'unknown', command: 'unknown', since: 'unknown' };
}

/**
 * A lock record as a backend read it back (the file lock's JSON, the pg
 * lock's jsonb): a LockInfo when it has every field, else held by "unknown".
 */
export function toLockInfo(value: unknown): LockInfo {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (
    typeof v.id === 'string' &&
    typeof v.pid === 'number' &&
    typeof v.host === 'string' &&
    typeof v.command === 'string' &&
    typeof v.since === 'string'
  ) {
    const info: LockInfo = { id: v.id, pid: v.pid, host: v.host, command: v.command, since: v.since };
    if (typeof v.start === 'string') info.start = v.start;
    if (typeof v.pidNamespace === 'string') info.pidNamespace = v.pidNamespace;
    return info;
  }
  return unknownHolder();
}

/** What identifies the running process beyond its pid: start time and pid namespace, when known. */
export interface ProcessIdentity {
  /** Start time in clock ticks since boot (/proc/PID/stat, field 22). */
  start?: string;
  /** The pid namespace (readlink /proc/PID/ns/pid), e.g. "pid:[4026531836]". */
  pidNamespace?: string;
}

/** The start time of process `pid` as the kernel reports it, or undefined where that is unknown. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

function pidNamespace(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** Start time and pid namespace of process `pid` (this process by default), as far as the system tells. */
export function processIdentity(pid: number = process.pid): ProcessIdentity {
  const identity: ProcessIdentity = {};
  const start = processStartTime(pid);
  if (start !== undefined) identity.start = start;
  const ns = pidNamespace(pid === process.pid ? 'self' : pid);
  if (ns !== undefined) identity.pidNamespace = ns;
  return identity;
}

/**
 * 'gone' only when the holder is sure to be dead: it ran on this host (and in
 * this pid namespace, when recorded) and its pid is not running, or runs a
 * process that started at another time than the one recorded. 'running' when
 * that process is there; 'unknown' for another host or namespace, or a record
 * that cannot be read: only the lock's owner, a --lock-timeout or
 * force-unlock can end those.
 */
export function holderStatus(holder: LockInfo, host: string = hostname()): 'running' | 'gone' | 'unknown' {
  if (holder.id === 'unknown' || holder.host !== host || !Number.isInteger(holder.pid) || holder.pid <= 0)
    return 'unknown';
  if (holder.pidNamespace !== undefined && holder.pidNamespace !== pidNamespace('self')) return 'unknown';
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: the pid exists but belongs to another user; the start time below decides.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
  }
  if (holder.start !== undefined) {
    const now = processStartTime(holder.pid);
    if (now !== undefined && now !== holder.start) return 'gone';
  }
  return 'running';
}
