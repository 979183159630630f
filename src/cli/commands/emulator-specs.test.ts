import { describe, expect, it } from 'vitest';
import { EmulatorOptionError } from '../../emulator/index.js';
import { parseFaultSpec, parseLatencySpec, parseTenantNames } from './emulator-specs.js';

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

describe('parseTenantNames', () => {
  it.each([
    ['3', ['t1', 't2', 't3']],
    ['dev, prod', ['dev', 'prod']],
  ])('reads %s', (spec, names) => expect(parseTenantNames(spec)).toEqual(names));

  it.each(['0', 'a,a', 'a b', ''])('refuses %j', (spec) =>
    expect(() => parseTenantNames(spec)).toThrow(EmulatorOptionError),
  );
});
