import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import type { RefreshFlags } from '../definitions.js';
import { parseRefreshRequest } from '../requests.js';
import { runRefresh, type RefreshResult, type RunEvent, type RunView } from '../../run/index.js';
import { readSummary, requireFull } from '../tenant-read.js';
import { whereLines } from '../where.js';
import { plural } from '../words.js';
import { renderCommonEvent, targetLine, unexpectedEvent } from '../run-view.js';

/** What refresh shows on the way: the state and target on stdout, problems on stderr. */
function refreshView(io: CommandIO): RunView {
  return {
    event(event: RunEvent) {
      if (renderCommonEvent(event, io)) return;
      if (event.kind === 'where')
        io.stdout.write(whereLines(event.state, targetLine(event.target, 'not set')));
      else unexpectedEvent(event);
    },
    showPlan: () => Promise.reject(new Error('refresh makes no plan')),
    confirm: () => Promise.reject(new Error('refresh asks nothing')),
  };
}

/** The read, the drift found and what was written, on stdout; the exit code. */
async function writeRefreshed(result: RefreshResult, io: CommandIO): Promise<number> {
  if (result.status !== 'refreshed') return 1;
  const { entries, drift, read } = result;
  const plan = await import('../../plan/index.js');
  io.stdout.write(`${readSummary(read)}\n\n`);
  io.stdout.write(plan.renderDriftText(drift, { color: plan.shouldUseColor(io.stdout, io.env) }));
  const removed = entries.filter((e) => e.op === 'remove').length;
  io.stdout.write(
    entries.length === 0
      ? 'The state already matches the tenant; nothing was written.\n'
      : `Refreshed the state: ${plural(entries.length - removed, 'record')} written, ${plural(removed, 'record')} removed. Run plan to see what it takes to match the configuration.\n`,
  );
  return 0;
}

/**
 * tenantform refresh [PATH]: the flags as a request, run by runRefresh
 * (src/run/refresh.ts: the tenant read, the state brought up to date under
 * the lock), then what it found.
 */
export async function refreshAction(
  pathArgs: string[],
  flags: RefreshFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseRefreshRequest(pathArgs, flags, io, requireFull);
  return writeRefreshed(await runRefresh(request, runIO(io), refreshView(io)), io);
}
