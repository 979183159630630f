import type { CommandIO } from '../io.js';
import { writePlan } from '../plan-output.js';
import { runIO } from '../context.js';
import { TOOL_VERSION } from '../version.js';
import type { PlanFlags } from '../definitions.js';
import { noStateWarning, whereLines } from '../where.js';
import { parsePlanRequest } from '../requests.js';
import { runPlan, type PlanRequest, type PlanReview, type RunEvent, type RunView } from '../../run/index.js';
import { renderCommonEvent, targetLine, unexpectedEvent } from '../run-view.js';
import { readSummary } from '../tenant-read.js';

/**
 * What plan shows: what the plan is made against first, on stderr (stdout
 * stays the plan alone in every format: piped into files, comments and
 * show's output), then the plan in its format, and where it was saved.
 * One environment's of several as well (fleet.ts).
 */
export function planView(request: PlanRequest, io: CommandIO): RunView {
  return {
    event(event: RunEvent) {
      if (renderCommonEvent(event, io)) return;
      if (event.kind === 'where') {
        const unset =
          'not set (apply takes --domain or --base-url, or TENANTFORM_DOMAIN or TENANTFORM_BASE_URL)';
        io.stderr.write(whereLines(event.state, targetLine(event.target, unset)));
      } else if (event.kind === 'tenant-read') io.stderr.write(`${readSummary(event.read)}\n`);
      else if (event.kind === 'no-state') io.stderr.write(noStateWarning(event.state));
      else if (event.kind === 'figures')
        return; // for the table of a multi-environment run (src/run/fleet.ts)
      else if (event.kind === 'plan-saved') {
        if (request.output.format === 'text')
          io.stdout.write(
            `\nSaved the plan to ${event.file}. Apply exactly this plan with: tenantform apply ${event.file}\n`,
          );
      } else unexpectedEvent(event);
    },
    async showPlan({ plan }: PlanReview) {
      await writePlan(plan, request.output.format, io, request.output.verbose);
    },
    confirm: () => Promise.reject(new Error('plan asks nothing')),
  };
}

/**
 * tenantform plan [PATH]: the flags as a request, run by runPlan
 * (src/run/plan.ts): desired (config) vs recorded (state). Sends no request
 * but reads. Exit 2 with --detailed-exitcode when there are changes.
 */
export async function planAction(
  pathArgs: string[],
  flags: PlanFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { requireFull } = await import('../tenant-read.js');
  const request = parsePlanRequest(pathArgs, flags, io, requireFull);
  const result = await runPlan(request, runIO(io), planView(request, io), { toolVersion: TOOL_VERSION });
  if (result.status === 'stopped') return 1;
  return request.detailedExitcode && result.hasChanges ? 2 : 0;
}
