import { existsSync, statSync } from 'node:fs';
import { CliError, type CommandIO } from '../io.js';
import {
  absolute,
  lockTimeoutOf,
  openStore,
  parseDuration,
  readStateForPlan,
  withLockedState,
  type StateFlags,
} from '../context.js';
import { openInputStore, resolveInputs } from '../inputs.js';
import type { LockInfo, StateStore } from '../../state/types.js';
import { printable } from '../../resources/index.js';
import type {
  ForceUnlockFlags,
  StateListFlags,
  StateMigrateFlags,
  StateRepairFlags,
  StateRescueFlags,
  StateRmFlags,
  StateShowFlags,
} from '../definitions.js';

async function withStore<T>(
  flags: StateFlags & { env?: string },
  path: string,
  io: CommandIO,
  fn: (store: StateStore) => Promise<T>,
): Promise<T> {
  const input = resolveInputs([path], flags.env, [], io, 'one')[0]!;
  const store = await openInputStore(flags, input, io);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The address in its canonical spelling; throws AddressError naming what is wrong. */
async function canonicalAddress(address: string): Promise<string> {
  const { parseAddress, formatAddress } = await import('../../resources/index.js');
  const parsed = parseAddress(address);
  return formatAddress(parsed.kind, parsed.identity);
}

function notInState(address: string, store: StateStore): CliError {
  return new CliError(`${address} is not in the state (${store.description}); see tenantform state list`);
}

/** tenantform state list: one address per line, with id and flags. */
export async function stateListAction(
  path: string,
  flags: StateListFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { recordIssues, badRecordAdvice } = await import('../../state/integrity.js');
  return withStore(flags, path, io, async (store) => {
    const doc = await readStateForPlan(store, io, { skipRecordChecks: true });
    if (!doc || doc.resources.length === 0) {
      io.stderr.write(`No resources recorded in ${store.description}.\n`);
      return 0;
    }
    const issues = recordIssues(doc.resources);
    for (const r of doc.resources) {
      const notes = [
        r.id ?? (r.adopted ? 'no id' : ''),
        r.adopted ? 'adopted: settings not verified' : '',
        ...issues.filter((i) => i.address === r.address).map((i) => `BAD: ${i.problem}`),
      ].filter(Boolean);
      io.stdout.write(`${printable(`${r.address}${notes.length ? `  (${notes.join('; ')})` : ''}`)}\n`);
    }
    if (issues.length > 0) {
      io.stderr.write(
        `\nplan and apply refuse this state until the records marked BAD are fixed. ${badRecordAdvice()}\n`,
      );
      return 1;
    }
    return 0;
  });
}

/** tenantform state show ADDRESS: the recorded resource as JSON. */
export async function stateShowAction(
  address: string,
  path: string,
  flags: StateShowFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const canonical = await canonicalAddress(address);
  return withStore(flags, path, io, async (store) => {
    const doc = await readStateForPlan(store, io, { skipRecordChecks: true });
    const found = doc?.resources.find((r) => r.address === canonical);
    if (!found) throw notInState(canonical, store);
    io.stdout.write(JSON.stringify(found, null, 2) + '\n');
    const { recordIssues } = await import('../../state/integrity.js');
    const bad = recordIssues(doc!.resources).filter((i) => i.address === canonical);
    for (const issue of bad) io.stderr.write(`BAD: ${issue.problem}\n`);
    return bad.length > 0 ? 1 : 0;
  });
}

/** tenantform state rm ADDRESS: stop tracking; the resource stays on the tenant. */
export async function stateRmAction(
  address: string,
  path: string,
  flags: StateRmFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const canonical = await canonicalAddress(address);
  return withStore(flags, path, io, (store) =>
    withLockedState(
      store,
      'state rm',
      { lockTimeoutMs: lockTimeoutOf(flags), io, skipRecordChecks: true },
      async (session) => {
        if (!session.doc.resources.some((r) => r.address === canonical)) throw notInState(canonical, store);
        await session.record({ op: 'remove', address: canonical });
        await session.commit();
        io.stdout.write(
          `Removed ${canonical} from the state. It stays on the tenant; tenantform no longer tracks it.\n`,
        );
        return 0;
      },
    ),
  );
}

/**
 * tenantform state rescue FILE: records the operations of a rescue file (or
 * the "tenantform-rescue:" lines of a log) into the state, under the lock.
 * The lineage must be the state's. A rescue file is removed once recorded; a
 * log is left alone.
 */
export async function stateRescueAction(
  file: string,
  path: string,
  flags: StateRescueFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const state = await import('../../state/index.js');
  const rescue = await state.readRescueFile(absolute(file, io));
  return withStore(flags, path, io, (store) =>
    withLockedState(
      store,
      'state rescue',
      { lockTimeoutMs: lockTimeoutOf(flags), io, rescue },
      async (session) => {
        const skipped = session.rescued.skipped.find((s) => s.file.path === rescue.path);
        if (skipped) throw new CliError(`${rescue.path} was not recorded: ${skipped.reason}`);
        io.stdout.write(
          `Recorded ${rescue.entries.length} acknowledged operation(s) from ${rescue.path} into ${store.description}` +
            `${rescue.kind === 'file' ? ' and removed the file' : ''}.\n`,
        );
        return 0;
      },
    ),
  );
}

/**
 * tenantform state repair: rewrites a journal damaged in the middle (e.g. by
 * a full disk with an older tenantform), keeping every complete entry and
 * saving the damaged file first. Takes the lock itself, since opening the
 * state would refuse the journal.
 */
export async function stateRepairAction(
  path: string,
  flags: StateRepairFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { hostname } = await import('node:os');
  return withStore(flags, path, io, async (store) => {
    if (!store.repairJournal) {
      throw new CliError(
        `${store.description} keeps its journal as database rows; there is nothing to repair`,
      );
    }
    const lock = await store.lock(
      { pid: process.pid, host: hostname(), command: 'state repair', since: new Date().toISOString() },
      { timeoutMs: parseDuration(flags.lockTimeout ?? '0s', '--lock-timeout') },
    );
    try {
      const result = await store.repairJournal();
      if (!result.backup) {
        io.stdout.write(
          `The journal of ${store.description} is intact (${result.kept} entries); nothing to repair.\n`,
        );
        return 0;
      }
      io.stdout.write(
        `Repaired the journal of ${store.description}: kept ${result.kept} complete entries, dropped line(s) ` +
          `${result.dropped.join(', ')}. The damaged journal is saved as ${result.backup}.\n` +
          'What a dropped line recorded is no longer in the state: if it was an operation the tenant did, the next ' +
          'apply sends it again (a create answers 409 and is adopted).\n',
      );
      return 0;
    } finally {
      await store.unlock(lock.id);
    }
  });
}

/** The state file PATH names: a file that is not YAML config (e.g. state.json), or its .lock; else null. */
function stateFileArgument(path: string, io: CommandIO): string | null {
  const abs = absolute(path, io);
  if (abs.endsWith('.lock') && existsSync(abs)) return abs.slice(0, -'.lock'.length);
  if (existsSync(abs) && statSync(abs).isFile() && !/\.ya?ml$/i.test(abs)) return abs;
  return null;
}

/**
 * Whether force-unlock may remove `holder`'s lock: at once when it is sure
 * to be gone (same host, its pid no longer runs: holderStatus); otherwise
 * only with --force, and on a terminal after a "yes". Throws CliError
 * LOCK_HOLDER_ALIVE without --force; false when the answer is no.
 */
async function mayRemove(
  holder: LockInfo,
  status: 'running' | 'gone' | 'unknown',
  flags: ForceUnlockFlags,
  where: string,
  io: CommandIO,
): Promise<boolean> {
  if (status === 'gone') return true;
  const who = `${holder.command} (pid ${holder.pid} on host ${holder.host}, since ${holder.since})`;
  const why =
    status === 'running'
      ? 'that process is still running on this host'
      : 'whether that process still runs cannot be checked from here (another host or container, or a lock record ' +
        'that cannot be read; a PostgreSQL lock is held by a database session that is still open)';
  const risk = `the state ${where} is locked by ${who}, and ${why}: removing its lock lets a second apply run beside it, and the two record conflicting state`;
  if (!flags.force) {
    throw new CliError(
      `${risk}. Nothing was removed. Stop that process (or wait for it: --lock-timeout); if you are sure it is gone, run force-unlock again with --force.`,
      1,
      'LOCK_HOLDER_ALIVE',
    );
  }
  if (!io.confirm) return true; // --force without a terminal: the flag is the confirmation
  return io.confirm(`${risk}.\nRemove the lock anyway?`);
}

/** tenantform force-unlock: remove a stale lock (a live holder's only with --force). */
export async function forceUnlockAction(
  path: string,
  flags: ForceUnlockFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  // PATH may name the state file itself (or its .lock) instead of a config path.
  const stateFile = flags.state || (flags.backend ?? 'file') !== 'file' ? null : stateFileArgument(path, io);
  const located = stateFile ? { ...flags, state: stateFile } : flags;
  return withStore(located, stateFile ? '.' : path, io, async (store) => {
    const { holderStatus } = await import('../../state/index.js');
    const current = store.lockHolder ? await store.lockHolder() : undefined;
    if (current === null) {
      io.stdout.write(`${store.description} was not locked.\n`);
      return 0;
    }
    if (current !== undefined) {
      const status = holderStatus(current);
      if (!(await mayRemove(current, status, flags, store.description, io))) {
        io.stdout.write('The lock was left in place.\n');
        return 1;
      }
    } else if (!flags.force) {
      throw new CliError(
        `cannot tell who holds the lock of ${store.description}: run again with --force to remove it`,
      );
    }
    const holder = await store.forceUnlock();
    if (!holder) {
      io.stdout.write(`${store.description} was not locked.\n`);
      return 0;
    }
    io.stdout.write(
      `Removed the lock held by ${holder.command} (pid ${holder.pid} on ${holder.host}) since ${holder.since}.\n` +
        (holderStatus(holder) === 'gone'
          ? 'That process is no longer running.\n'
          : 'If that process is still running, stop it: two applies at once can record conflicting state.\n'),
    );
    return 0;
  });
}

async function storeFromSpec(spec: string, flags: StateMigrateFlags, io: CommandIO): Promise<StateStore> {
  if (spec.startsWith('file:')) {
    return openStore({ state: spec.slice(5), backend: 'file' }, '.', io);
  }
  if (spec === 'pg' || spec.startsWith('pg:')) {
    const workspace = spec.startsWith('pg:') ? spec.slice(3) : 'default';
    return openStore({ backend: 'pg', backendConfig: flags.backendConfig, workspace }, '.', io);
  }
  throw new CliError(`"${spec}" is not a state location; use file:PATH or pg[:WORKSPACE]`);
}

/** tenantform state migrate --from file:PATH --to pg:WORKSPACE. */
export async function stateMigrateAction(
  flags: StateMigrateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { migrateState } = await import('../../state/pg/index.js');
  const from = await storeFromSpec(flags.from, flags, io);
  try {
    const to = await storeFromSpec(flags.to, flags, io);
    try {
      const result = await migrateState(from, to, {
        force: flags.force ?? false,
        lockTimeoutMs: parseDuration(flags.lockTimeout ?? '0s', '--lock-timeout'),
      });
      io.stdout.write(
        `Copied ${result.resources} resources from ${from.description} to ${to.description} (serial ${result.serial}).\n`,
      );
      return 0;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
