/**
 * The log events of a --logs (simulate) or --simulate (plan) source, read
 * into a simulation: files through src/simulate, `tenant` through
 * simulate-tenant.ts. A source that is not log events is a CliError naming
 * the flag, the file and the line.
 */
import type { Simulation } from '../simulate/index.js';
import { absolute } from './context.js';
import type { ConfigInput } from './inputs.js';
import { CliError, type CommandIO } from './io.js';
import type { ReadSummary } from './simulate-output.js';
import type { TenantReader } from './simulate-tenant.js';

/** How much of the tenant's logs to read. */
export interface ReadLimits {
  /** Only events from then on (ms since the epoch). */
  since: number | null;
  /** At most this many events from the tenant. */
  cap: number;
}

/** Reads `source` (a file, a directory, or `tenant`) into `simulation`; says what it read. `flag`: "simulate --logs". */
export async function readLogs(
  flag: string,
  source: string,
  simulation: Simulation,
  context: { reader: TenantReader; input: ConfigInput; io: CommandIO; limits: ReadLimits },
): Promise<ReadSummary> {
  const { reader, input, io, limits } = context;
  const sink = (record: Record<string, unknown>) => simulation.add(record);
  if (source === 'tenant') {
    const { readTenantLogs } = await import('./simulate-tenant.js');
    return readTenantLogs(`${flag} tenant`, reader, input, io, limits, sink);
  }
  const sim = await import('../simulate/index.js');
  const full = absolute(source, io);
  try {
    const files = await sim.readSource(full, sink);
    return { source: files.files.length === 1 ? source : `${source} (${files.files.length} files)` };
  } catch (err) {
    if (err instanceof sim.LogSourceError)
      throw new CliError(`${flag.split(' ').at(-1)!} ${err.message.replace(full, source)}`);
    throw err;
  }
}
