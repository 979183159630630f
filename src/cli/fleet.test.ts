import { describe, expect, it } from 'vitest';
import { bounded, isFleetRun } from './fleet.js';
import { prefixedStream } from './fleet-streams.js';

describe('bounded', () => {
  it('runs at most `limit` at once and keeps the order of results', async () => {
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const done = bounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      return n * 10;
    });
    // Release one waiting task at a time until all have run.
    while (gates.length > 0 || running > 0) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(peak).toBe(3);
  });
});

describe('isFleetRun', () => {
  it.each([
    [{ env: ['a'] }, false],
    [{ env: 'a' }, false],
    [{ env: ['a', 'a'] }, false],
    [{ env: ['a', 'b'] }, true],
    [{ allEnvs: true }, true],
  ])('%j → %s', (flags, expected) => expect(isFleetRun(flags)).toBe(expected));
});

describe('prefixedStream', () => {
  it('prefixes whole lines, holding a partial line until it ends', () => {
    let out = '';
    const s = prefixedStream('[dev]', { write: (c: string) => (out += c) });
    s.write('one\ntw');
    expect(out).toBe('[dev] one\n');
    s.write('o\n\nthree');
    s.end();
    expect(out).toBe('[dev] one\n[dev] two\n[dev]\n[dev] three\n');
  });
});
