/**
 * The emulator's own option texts (tenantform emulator --faults, --latency,
 * --tenants) read into the typed options src/emulator takes; a bad text is
 * an EmulatorOptionError naming the flag.
 */
import { checkFaults, EmulatorOptionError, FAULT_NAMES, type FaultOptions } from '../../emulator/index.js';

/** --faults "error=0.2,reset=0.1,lost=0.05": each NAME=FRACTION, their sum at most 1. */
export function parseFaultSpec(spec: string): FaultOptions {
  const faults: FaultOptions = {};
  const parts = spec.split(',').map((p) => p.trim());
  if (parts.every((p) => p === ''))
    throw new EmulatorOptionError('--faults is empty; expected e.g. error=0.2,reset=0.1');
  for (const part of parts) {
    if (part === '') continue;
    const match = /^([a-z]+)\s*=\s*(\S+)$/.exec(part);
    if (!match) throw new EmulatorOptionError(`--faults: "${part}" is not NAME=FRACTION (e.g. error=0.2)`);
    const name = match[1]!;
    if (!(FAULT_NAMES as readonly string[]).includes(name)) {
      throw new EmulatorOptionError(`--faults: unknown fault "${name}"; known: ${FAULT_NAMES.join(', ')}`);
    }
    const key = name as (typeof FAULT_NAMES)[number];
    if (faults[key] !== undefined) throw new EmulatorOptionError(`--faults: "${name}" is given twice`);
    const text = match[2]!;
    const value = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!(value >= 0 && value <= 1)) {
      throw new EmulatorOptionError(`--faults: ${name} must be a fraction from 0 to 1 (got "${text}")`);
    }
    faults[key] = value;
  }
  try {
    checkFaults(faults);
  } catch (err) {
    throw new EmulatorOptionError(`--faults: ${(err as Error).message}`);
  }
  return faults;
}

/** --latency "MS" or "MS:JITTER" (whole milliseconds). */
export function parseLatencySpec(spec: string): { latencyMs: number; latencyJitterMs: number } {
  const match = /^\s*(\d{1,7})(?::(\d{1,7}))?\s*$/.exec(spec);
  if (!match) {
    throw new EmulatorOptionError(
      `--latency must be MS or MS:JITTER in whole milliseconds, e.g. 50 or 50:20 (got "${spec}")`,
    );
  }
  return { latencyMs: Number(match[1]), latencyJitterMs: Number(match[2] ?? 0) };
}

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** --tenants "3" → t1, t2, t3; "dev,prod" → dev, prod. */
export function parseTenantNames(spec: string): string[] {
  const text = spec.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < 1 || n > 1000) throw new EmulatorOptionError(`--tenants must be from 1 to 1000 (got ${text})`);
    return Array.from({ length: n }, (_, i) => `t${i + 1}`);
  }
  const names = text.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!TENANT_NAME.test(name)) {
      throw new EmulatorOptionError(
        `--tenants: "${name}" is not a tenant name (letters, digits, ., _ and -), nor is the list a number`,
      );
    }
  }
  if (new Set(names).size !== names.length) throw new EmulatorOptionError('--tenants lists a name twice');
  return names;
}
