/**
 * tenantform simulate [PATH...] --logs SOURCE [--since WHEN] [--format text|markdown|json]
 *
 * Replays the tenant's log events against the configuration's rate limit
 * policies (src/simulate) and prints what each policy would have done to
 * each application. The events come from files (sources.ts) or, with
 * `--logs tenant` (API profile full), from GET /api/v2/logs through the one
 * API client, paced like every read. Reads no state. Exit codes: 0; 1 for a
 * config problem or a source that is not log events (the error names the
 * file and line, and no report is printed). The request runs below the
 * command line (runSimulate, src/run/simulate.ts); this module parses it and
 * renders what it returns.
 */
import type { SimulateFlags } from '../definitions.js';
import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import { reportIssues } from '../config-issues.js';
import { parseSimulateRequest } from '../read-requests.js';
import { renderSimulate } from '../simulate-output.js';

/** Runs `tenantform simulate`; returns the exit code. */
export async function simulateAction(
  paths: string[],
  flags: SimulateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseSimulateRequest(paths, flags, io, Date.now());
  const { runSimulate } = await import('../../run/simulate.js');
  const result = await runSimulate(request, runIO(io));
  if (result.kind === 'config-issues') {
    reportIssues(result.issues, io);
    return 1;
  }
  io.stdout.write(renderSimulate(result.report, result.read, request.output.format));
  return 0;
}
