import { CliError, type CommandIO } from '../io.js';
import { runIO } from '../context.js';
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
import {
  parseForceUnlockRequest,
  parseStateListRequest,
  parseStateMigrateRequest,
  parseStateRepairRequest,
  parseStateRescueRequest,
  parseStateRmRequest,
  parseStateShowRequest,
} from '../local-requests.js';
import type {
  ForceUnlockRequest,
  LocatedState,
  StateRepairRequest,
  StateRescueRequest,
  StateRmRequest,
} from '../../run/local-requests.js';
import { migrateStates, withLocatedStore } from '../../run/local-runs.js';

/** Runs `fn` with the located state's store open. */
function withStore<T>(
  located: LocatedState,
  io: CommandIO,
  fn: (store: StateStore) => Promise<T>,
): Promise<T> {
  return withLocatedStore(located, runIO(io), fn);
}

function notInState(address: string, store: { description: string }): CliError {
  return new CliError(`${address} is not in the state (${store.description}); see tenantform state list`);
}

/** tenantform state list: one address per line, with id and flags. */
export async function stateListAction(
  path: string,
  flags: StateListFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseStateListRequest(path, flags, io);
  const { recordLines } = await import('../../state/records.js');
  const { badRecordAdvice } = await import('../../state/integrity.js');
  const { readStateWithRescue } = await import('../../run/locked-state.js');
  return withStore(request.located, io, async (store) => {
    const lines = recordLines(await readStateWithRescue(store, runIO(io), { skipRecordChecks: true }));
    if (lines.length === 0) {
      io.stderr.write(`No resources recorded in ${store.description}.\n`);
      return 0;
    }
    for (const r of lines) {
      const notes = [
        r.id ?? (r.adopted ? 'no id' : ''),
        r.adopted ? 'adopted: settings not verified' : '',
        ...r.problems.map((problem) => `BAD: ${problem}`),
      ].filter(Boolean);
      io.stdout.write(`${printable(`${r.address}${notes.length ? `  (${notes.join('; ')})` : ''}`)}\n`);
    }
    if (lines.some((r) => r.problems.length > 0)) {
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
  const request = await parseStateShowRequest(address, path, flags, io);
  const { recordAt } = await import('../../state/records.js');
  const { readStateWithRescue } = await import('../../run/locked-state.js');
  return withStore(request.located, io, async (store) => {
    const doc = await readStateWithRescue(store, runIO(io), { skipRecordChecks: true });
    const found = recordAt(doc, request.address);
    if (!found) throw notInState(request.address, store);
    io.stdout.write(JSON.stringify(found.record, null, 2) + '\n');
    for (const problem of found.problems) io.stderr.write(`BAD: ${problem}\n`);
    return found.problems.length > 0 ? 1 : 0;
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
  return runStateRm(await parseStateRmRequest(address, path, flags, io), io);
}

async function runStateRm(request: StateRmRequest, io: CommandIO): Promise<number> {
  const { removeRecord } = await import('../../state/records.js');
  const { withLockedState } = await import('../../run/locked-state.js');
  const { address } = request;
  return withStore(request.located, io, (store) =>
    withLockedState(
      store,
      'state rm',
      { lockTimeoutMs: request.lockTimeoutMs, skipRecordChecks: true },
      runIO(io),
      async (session) => {
        if (!(await removeRecord(session, address))) throw notInState(address, store);
        io.stdout.write(
          `Removed ${address} from the state. It stays on the tenant; tenantform no longer tracks it.\n`,
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
  return runStateRescue(await parseStateRescueRequest(file, path, flags, io), io);
}

async function runStateRescue(request: StateRescueRequest, io: CommandIO): Promise<number> {
  const { rescue } = request;
  const { withLockedState } = await import('../../run/locked-state.js');
  return withStore(request.located, io, (store) =>
    withLockedState(
      store,
      'state rescue',
      { lockTimeoutMs: request.lockTimeoutMs, rescue },
      runIO(io),
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
  return runStateRepair(parseStateRepairRequest(path, flags, io), io);
}

async function runStateRepair(request: StateRepairRequest, io: CommandIO): Promise<number> {
  const { hostname } = await import('node:os');
  const { repairJournal } = await import('../../state/records.js');
  return withStore(request.located, io, async (store) => {
    const holder = {
      pid: process.pid,
      host: hostname(),
      command: 'state repair',
      since: new Date().toISOString(),
    };
    const result = await repairJournal(store, holder, request.lockTimeoutMs);
    if (result.kind === 'no-journal-file') {
      throw new CliError(
        `${store.description} keeps its journal as database rows; there is nothing to repair`,
      );
    }
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
  });
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
  force: boolean,
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
  if (!force) {
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
  return runForceUnlock(parseForceUnlockRequest(path, flags, io), io);
}

async function runForceUnlock(request: ForceUnlockRequest, io: CommandIO): Promise<number> {
  const { lockHolding, removeLock } = await import('../../state/records.js');
  return withStore(request.located, io, async (store) => {
    const holding = await lockHolding(store);
    if (holding.kind === 'unlocked') {
      io.stdout.write(`${store.description} was not locked.\n`);
      return 0;
    }
    if (holding.kind === 'held') {
      if (!(await mayRemove(holding.holder, holding.status, request.force, store.description, io))) {
        io.stdout.write('The lock was left in place.\n');
        return 1;
      }
    } else if (!request.force) {
      throw new CliError(
        `cannot tell who holds the lock of ${store.description}: run again with --force to remove it`,
      );
    }
    const removed = await removeLock(store);
    if (!removed) {
      io.stdout.write(`${store.description} was not locked.\n`);
      return 0;
    }
    const { holder } = removed;
    io.stdout.write(
      `Removed the lock held by ${holder.command} (pid ${holder.pid} on ${holder.host}) since ${holder.since}.\n` +
        (removed.gone
          ? 'That process is no longer running.\n'
          : 'If that process is still running, stop it: two applies at once can record conflicting state.\n'),
    );
    return 0;
  });
}

/** tenantform state migrate --from file:PATH --to pg:WORKSPACE. */
export async function stateMigrateAction(
  flags: StateMigrateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const result = await migrateStates(parseStateMigrateRequest(flags), runIO(io));
  io.stdout.write(
    `Copied ${result.resources} resources from ${result.from} to ${result.to} (serial ${result.serial}).\n`,
  );
  return 0;
}
