import type { CommandIO } from '../io.js';
import { parseCount, parseNumber, parseRate } from '../context.js';
import { MAX_WINDOW_SEC } from '../../emulator/index.js';
import { runEmulator } from './emulator.js';
import type { EmulatorFlags } from '../definitions.js';

/** The largest bucket the emulator takes (--burst, and --rate-limit, which sets the burst without it). */
const MAX_BURST = 1_000_000;

/** tenantform emulator: commander adapter for runEmulator. */
export function emulatorAction(flags: EmulatorFlags, _cmd: unknown, io: CommandIO): Promise<number> {
  return runEmulator(
    {
      host: flags.host,
      port: parseCount(flags.port, '--port', 0, 65535) ?? 0,
      // The rate is bounded as the burst is: without --burst, the burst is the rate.
      rateLimit: parseRate(flags.rateLimit, '--rate-limit', MAX_BURST),
      burst: parseCount(flags.burst, '--burst', 1, MAX_BURST),
      rateLimitWindow: parseCount(flags.rateLimitWindow, '--rate-limit-window', 1, MAX_WINDOW_SEC),
      rateLimitModel: flags.rateLimitModel,
      rateLimitTier: flags.rateLimitTier,
      rateLimitScope: flags.rateLimitScope,
      clockSkew: parseNumber(flags.clockSkew, '--clock-skew'),
      dateHeader: flags.dateHeader,
      frontEndOffset: parseNumber(flags.frontEndOffset, '--front-end-offset'),
      latency: flags.latency,
      faults: flags.faults,
      users: flags.users,
      data: flags.data,
      seed: flags.seed,
      json: flags.json ?? false,
      tenants: flags.tenants,
      tls: flags.tls ?? false,
      api: flags.api,
      logs: flags.logs,
      traffic: flags.traffic,
      trafficSeed: parseCount(flags.trafficSeed, '--traffic-seed', 0, 4_294_967_295),
    },
    io,
  );
}
