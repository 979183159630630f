import { describe, expect, it } from 'vitest';
import {
  checkFaults,
  drawFault,
  drawLatency,
  EmulatorOptionError,
  parseFaultSpec,
  parseLatencySpec,
} from './faults.js';

describe('fault draws', () => {
  const faults = { reset: 0.1, error: 0.2, lost: 0.3 };
  it.each([
    [0, { kind: 'reset' }],
    [0.0999, { kind: 'reset' }],
    [0.1, { kind: 'error', status: 500 }],
    [0.2, { kind: 'error', status: 503 }],
    [0.31, { kind: 'lost' }],
    [0.5999, { kind: 'lost' }],
    [0.61, { kind: 'none' }],
  ])('maps a draw of %d to %o', (r, decision) => {
    expect(drawFault(faults, () => r)).toEqual(decision);
  });

  it('adds jitter only when one is set', () => {
    expect(drawLatency(20, 0, () => 0.9)).toBe(20);
    expect(drawLatency(20, 10, () => 0.95)).toBe(29);
  });
});

describe('parseFaultSpec', () => {
  it.each([
    ['error=0.2,reset=0.1,lost=0.05', { error: 0.2, reset: 0.1, lost: 0.05 }],
    ['error=1', { error: 1 }],
    [' lost = .5 , ', { lost: 0.5 }],
    ['reset=0', { reset: 0 }],
  ])('parses %s', (spec, expected) => {
    expect(parseFaultSpec(spec)).toEqual(expected);
  });

  it.each([
    ['error=2', 'fraction from 0 to 1'],
    ['error=-0.1', 'fraction from 0 to 1'],
    ['error=abc', 'fraction from 0 to 1'],
    ['timeout=0.1', 'unknown fault "timeout"'],
    ['error', 'NAME=FRACTION'],
    ['error=0.1,error=0.2', 'given twice'],
    ['error=0.6,lost=0.6', 'add up to at most 1'],
    ['', 'empty'],
  ])('refuses %s', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(EmulatorOptionError);
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });

  it('checks option objects with the same rules', () => {
    expect(() => checkFaults({ reset: 1.5 })).toThrow('"reset" must be a fraction');
    expect(() => checkFaults({ reset: Number.NaN })).toThrow(EmulatorOptionError);
  });
});

describe('parseLatencySpec', () => {
  it.each([
    ['50', { latencyMs: 50, latencyJitterMs: 0 }],
    ['50:20', { latencyMs: 50, latencyJitterMs: 20 }],
    ['0', { latencyMs: 0, latencyJitterMs: 0 }],
  ])('parses %s', (spec, expected) => {
    expect(parseLatencySpec(spec)).toEqual(expected);
  });

  it.each(['', '-5', '5.5', '50:', 'fast', '1:2:3'])('refuses "%s"', (spec) => {
    expect(() => parseLatencySpec(spec)).toThrow('--latency must be MS or MS:JITTER');
  });
});
