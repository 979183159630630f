/**
 * Deliberate misbehaviour for tests and benchmarks: latency with jitter and
 * three fault modes, drawn from an injectable random source.
 *
 * One draw r in [0, 1) per request decides the fault: r < reset → reset;
 * then the next `error` fraction → error (its lower half 500, upper half 503);
 * then the next `lost` fraction → lost; otherwise no fault. Latency draws its
 * jitter first, and only when a jitter is set.
 *
 * Faults are fractions in [0, 1] of error, reset and lost, their sum at most
 * 1; latency is whole milliseconds plus a uniform draw from [0, jitter).
 * The command line's texts for them are read in src/cli/commands/emulator-specs.ts.
 */
import { EmulatorOptionError } from './option-error.js';
import type { FaultOptions } from './types.js';

export type FaultDecision =
  { kind: 'none' } | { kind: 'reset' } | { kind: 'lost' } | { kind: 'error'; status: 500 | 503 };

export const FAULT_NAMES = ['error', 'reset', 'lost'] as const;

export { EmulatorOptionError };

/** Throws EmulatorOptionError unless every fraction is in [0, 1] and they sum to at most 1. */
export function checkFaults(faults: FaultOptions): void {
  let sum = 0;
  for (const name of FAULT_NAMES) {
    const value = faults[name] ?? 0;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new EmulatorOptionError(`fault "${name}" must be a fraction from 0 to 1 (got ${String(value)})`);
    }
    sum += value;
  }
  if (sum > 1 + 1e-9) throw new EmulatorOptionError(`fault fractions must add up to at most 1 (got ${sum})`);
}

export function hasFaults(faults: FaultOptions | undefined): boolean {
  return faults !== undefined && FAULT_NAMES.some((name) => (faults[name] ?? 0) > 0);
}

export function drawFault(faults: FaultOptions, random: () => number): FaultDecision {
  const r = random();
  const reset = faults.reset ?? 0;
  const error = faults.error ?? 0;
  const lost = faults.lost ?? 0;
  if (r < reset) return { kind: 'reset' };
  if (r < reset + error) return { kind: 'error', status: (r - reset) / error < 0.5 ? 500 : 503 };
  if (r < reset + error + lost) return { kind: 'lost' };
  return { kind: 'none' };
}

export function drawLatency(latencyMs: number, jitterMs: number, random: () => number): number {
  return jitterMs > 0 ? latencyMs + Math.floor(random() * jitterMs) : latencyMs;
}
