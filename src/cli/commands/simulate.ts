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
import { loadDesiredOrReport, resolveInputs } from '../inputs.js';
import { CliError, type CommandIO } from '../io.js';
import { renderSimulate } from '../simulate-output.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --since: a duration back from `now` (30m, 24h, 7d) or a date; ms since the epoch. */
export function parseSince(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const back = /^(\d+)(m|h|d)$/.exec(value.trim());
  if (back) return now - Number(back[1]) * UNITS[back[2]!]!;
  const date = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value.trim())
    ? Date.parse(value.trim())
    : NaN;
  if (Number.isNaN(date)) {
    throw new CliError(
      `--since must be a duration back from now (30m, 24h, 7d) or a date such as 2026-11-20 or 2026-11-20T08:00:00Z (got "${value}")`,
    );
  }
  return date;
}

/** Runs `tenantform simulate`; returns the exit code. */
export async function simulateAction(
  paths: string[],
  flags: SimulateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const since = parseSince(flags.since, Date.now());
  const { parseCount } = await import('../context.js');
  const cap = parseCount(flags.maxEvents, '--max-events', 1, 1_000_000_000)!;
  const input = resolveInputs(paths, flags.env, flags.varFile, io, 'one')[0]!;
  const desired = await loadDesiredOrReport(input.paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const { policiesOf } = await import('../../review/index.js');
  const sim = await import('../../simulate/index.js');
  const simulation = new sim.Simulation(since);
  const { readLogs } = await import('../simulate-read.js');
  const { connectionRequestOf } = await import('../requests.js');
  const { environmentApi } = await import('../inputs.js');
  const reader = { connection: connectionRequestOf(flags, io, input), api: environmentApi(flags.api, input) };
  const read = await readLogs('simulate --logs', flags.logs, simulation, {
    reader,
    input,
    io,
    limits: { since, cap },
  });
  io.stdout.write(renderSimulate(simulation.report(policiesOf(desired)), read, flags.format));
  return 0;
}
