import { describe, expect, it } from 'vitest';
import { checkFaults, drawFault, drawLatency, EmulatorOptionError } from './faults.js';

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

describe('checkFaults', () => {
  it('checks option objects with the same rules', () => {
    expect(() => checkFaults({ reset: 1.5 })).toThrow('"reset" must be a fraction');
    expect(() => checkFaults({ reset: Number.NaN })).toThrow(EmulatorOptionError);
  });
});
