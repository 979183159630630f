/**
 * Deliberate misbehaviour for tests and benchmarks: latency with jitter and
 * three fault modes, drawn from an injectable random source.
 *
 * One draw r in [0, 1) per request decides the fault: r < reset → reset;
 * then the next `error` fraction → error (its lower half 500, upper half 503);
 * then the next `lost` fraction → lost; otherwise no fault. Latency draws its
 * jitter first, and only when a jitter is set.
 *
 * Spec strings (the CLI's --faults and --latency):
 * - faults: comma list of NAME=FRACTION with NAME in error, reset, lost,
 *   each fraction in [0, 1], their sum at most 1: "error=0.2,reset=0.1,lost=0.05".
 * - latency: "MS" or "MS:JITTER" (whole milliseconds); the delay is MS plus a
 *   uniform draw from [0, JITTER).
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

/** Parses "error=0.2,reset=0.1,lost=0.05"; throws EmulatorOptionError naming what is wrong. */
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

/** Parses "MS" or "MS:JITTER" into milliseconds. */
export function parseLatencySpec(spec: string): { latencyMs: number; latencyJitterMs: number } {
  const match = /^\s*(\d{1,7})(?::(\d{1,7}))?\s*$/.exec(spec);
  if (!match) {
    throw new EmulatorOptionError(
      `--latency must be MS or MS:JITTER in whole milliseconds, e.g. 50 or 50:20 (got "${spec}")`,
    );
  }
  return { latencyMs: Number(match[1]), latencyJitterMs: Number(match[2] ?? 0) };
}
