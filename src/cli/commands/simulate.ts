/**
 * tenantform simulate [PATH...] --logs SOURCE [--since WHEN] [--format text|markdown|json]
 *
 * Replays the tenant's log events against the configuration's rate limit
 * policies (src/simulate) and prints what each policy would have done to
 * each application. The events come from files (sources.ts) or, with
 * `--logs tenant` (API profile full), from GET /api/v2/logs through the one
 * API client, paced like every read. Reads no state. Exit codes: 0; 1 for a
 * config problem or a source that is not log events (the error names the
 * file and line, and no report is printed).
 */
import type { SimulateFlags } from '../definitions.js';
import { loadDesiredOrReport } from '../inputs.js';
import type { CommandIO } from '../io.js';
import type { SimulateRequest } from '../../run/read-requests.js';
import { parseSimulateRequest } from '../read-requests.js';
import { renderSimulate } from '../simulate-output.js';

export { parseSince } from '../read-requests.js';

/** Runs `tenantform simulate`; returns the exit code. */
export async function simulateAction(
  paths: string[],
  flags: SimulateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runSimulate(parseSimulateRequest(paths, flags, io, Date.now()), io);
}

/** Runs a simulate request: the events read and replayed, the report printed; the exit code. */
async function runSimulate(request: SimulateRequest, io: CommandIO): Promise<number> {
  const { input, since } = request;
  const desired = await loadDesiredOrReport(
    input.paths,
    { vars: request.vars, varFiles: input.varFiles },
    io,
  );
  if (!desired) return 1;
  const { policiesOf } = await import('../../review/index.js');
  const sim = await import('../../simulate/index.js');
  const simulation = new sim.Simulation(since);
  const { readLogs } = await import('../simulate-read.js');
  const read = await readLogs('simulate --logs', request.logs, simulation, {
    reader: request.reader,
    input,
    io,
    limits: { since, cap: request.maxEvents },
  });
  io.stdout.write(renderSimulate(simulation.report(policiesOf(desired)), read, request.output.format));
  return 0;
}
