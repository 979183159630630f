import type { CommandIO } from '../io.js';
import { runIO, withLockedState } from '../context.js';
import type { RefreshFlags } from '../definitions.js';
import { loadDesiredOrReport } from '../inputs.js';
import { parseRefreshRequest } from '../requests.js';
import { openInputStore } from '../../run/state-store.js';
import { openClient, readTarget } from '../../run/connection.js';
import type { RefreshRequest } from '../../run/requests.js';
import { readLive, readSummary, referencesHold, requireFull, listParams } from '../tenant-read.js';
import { describeState, whereLines } from '../where.js';
import { guardTenant } from '../tenant-binding.js';
import { plural } from '../words.js';

/**
 * tenantform refresh [PATH]: reads the tenant (API profile full) and brings
 * the state up to date with it, under the lock, every change journaled
 * before it counts. Plans nothing and sends nothing but reads. The config
 * names the users whose permissions are read, and an unmanaged resource it
 * declares is recorded (with its id and live settings). A config reference
 * the tenant lacks (live.referencesHold) stops it before anything is written;
 * a reference list the token may not read (403) is only a warning here.
 */
export async function refreshAction(
  pathArgs: string[],
  flags: RefreshFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runRefresh(parseRefreshRequest(pathArgs, flags, io, requireFull), io);
}

/** Runs a refresh request: the tenant read, the state brought up to date; the exit code. */
async function runRefresh(request: RefreshRequest, io: CommandIO): Promise<number> {
  const { input, parallelism, connection } = request;
  const desired = await loadDesiredOrReport(
    input.paths,
    { vars: request.vars, varFiles: input.varFiles },
    io,
  );
  if (!desired) return 1;
  const store = await openInputStore(request.state, connection.named, input, runIO(io));
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  try {
    return await withLockedState(
      store,
      'refresh',
      { lockTimeoutMs: request.lockTimeoutMs, io },
      async (session) => {
        const target = await readTarget(connection, input, runIO(io));
        io.stdout.write(whereLines(describeState(store, io), target.baseUrl));
        const guarded = { store, input, io, command: 'refresh' };
        await guardTenant(session, guarded, tenant, false);
        const client = await openClient(connection, input, runIO(io), { parallelism, store });
        let read;
        try {
          read = await readLive(client, listParams(desired, session.doc), parallelism, desired);
        } finally {
          await client.close();
        }
        // Bound once the tenant has answered: a target that never answers binds nothing.
        await guardTenant(session, guarded, tenant, true);
        if (!(await referencesHold(desired, read.references, io))) return 1;
        const plan = await import('../../plan/index.js');
        const { entries, drift } = plan.refreshState(session.doc, read, desired);
        for (const entry of entries) await session.record(entry);
        await session.commit();
        await (await import('../known-names.js')).keepNames(store, read.references, io);
        io.stdout.write(`${readSummary(read)}\n\n`);
        io.stdout.write(plan.renderDriftText(drift, { color: plan.shouldUseColor(io.stdout, io.env) }));
        const removed = entries.filter((e) => e.op === 'remove').length;
        io.stdout.write(
          entries.length === 0
            ? 'The state already matches the tenant; nothing was written.\n'
            : `Refreshed the state: ${plural(entries.length - removed, 'record')} written, ${plural(removed, 'record')} removed. Run plan to see what it takes to match the configuration.\n`,
        );
        return 0;
      },
    );
  } finally {
    await store.close();
  }
}
