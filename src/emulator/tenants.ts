/**
 * Many emulated tenants in one process: one startEmulator per tenant, each on
 * its own port (so its own base URL), with its own data, signing secret and
 * credentials (a token of one tenant is refused by every other) and its own
 * rate-limit bucket. Fleets can then be tested and rehearsed on one machine.
 * With tls, one CA signs every tenant's certificate (one CA file for all).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalAuthority } from './certificates.js';
import { EmulatorOptionError } from './faults.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorOptions } from './types.js';

export interface TenantHandle extends EmulatorHandle {
  name: string;
}

/**
 * Starts one emulator per name. With a fixed `port`, tenant i listens on
 * port + i; with 0 each gets a free port. `dataFile` is then a directory:
 * each tenant keeps NAME.json in it. If one fails to start, the others are
 * stopped before the error is thrown.
 */
export async function startTenants(
  names: readonly string[],
  options: EmulatorOptions = {},
): Promise<TenantHandle[]> {
  const base = options.port ?? 0;
  if (base !== 0 && base + names.length - 1 > 65535) {
    throw new EmulatorOptionError(`ports ${base}..${base + names.length - 1} go past 65535`);
  }
  if (options.dataFile !== undefined) mkdirSync(options.dataFile, { recursive: true });
  // One CA for all tenants, so one NODE_EXTRA_CA_CERTS file serves them all.
  const tls = options.tls === true ? new LocalAuthority([options.host ?? '127.0.0.1']) : options.tls;
  const started: TenantHandle[] = [];
  try {
    for (const [i, name] of names.entries()) {
      const handle = await startEmulator({
        ...options,
        ...(tls ? { tls } : {}),
        port: base === 0 ? 0 : base + i,
        ...(options.dataFile !== undefined ? { dataFile: join(options.dataFile, `${name}.json`) } : {}),
      });
      started.push(Object.assign(handle, { name }));
    }
  } catch (err) {
    await Promise.all(started.map((h) => h.stop()));
    throw err;
  }
  return started;
}

/** NAME as part of an environment variable name: "eu-west.1" → "EU_WEST_1". */
export function variablePrefix(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}
