import { describe, expect, it } from 'vitest';
import { profile, putEntry, stateDoc } from '../../test/helpers/state-contract.js';
import {
  applyJournal,
  applyRescue,
  checkCompareAndSet,
  copyJson,
  emptyState,
  indexByAddress,
  newLineage,
} from './document.js';
import { StateError } from './errors.js';
import type { JournalEntry } from './types.js';

const remove = (n: number, lineage = 'contract-lineage-a'): JournalEntry => ({
  v: 1,
  lineage,
  op: 'remove',
  address: profile(n).address,
});

describe('state document helpers', () => {
  it('makes an empty, never-written state', () => {
    expect(emptyState('l-1')).toEqual({ format_version: 2, lineage: 'l-1', serial: 0, resources: [] });
  });

  it('makes a new random lineage each time', () => {
    expect(newLineage()).toMatch(/^[0-9a-f-]{36}$/);
    expect(newLineage()).not.toBe(newLineage());
  });

  it('applies puts and removes by address, sorted, without changing serial or the input', () => {
    const doc = stateDoc(4, [profile(1), profile(5)]);
    const next = applyJournal(doc, [
      putEntry(profile(3)),
      remove(1),
      putEntry(profile(5, 'tep_changed')),
      remove(8),
    ]);
    expect(next).toEqual(stateDoc(4, [profile(3), profile(5, 'tep_changed')]));
    expect(doc).toEqual(stateDoc(4, [profile(1), profile(5)]));
  });

  it('gives the same result when entries are replayed twice (idempotent)', () => {
    const entries = [putEntry(profile(2)), remove(1), putEntry(profile(3))];
    const once = applyJournal(stateDoc(1, [profile(1)]), entries);
    expect(applyJournal(once, entries)).toEqual(once);
  });

  it('refuses an entry of another lineage (STATE_CORRUPT)', () => {
    expect(() =>
      applyJournal(stateDoc(1), [putEntry(profile(1)), putEntry(profile(2), 'other')], 'the journal of x'),
    ).toThrowError(
      expect.objectContaining({
        code: 'STATE_CORRUPT',
        message: expect.stringContaining('entry 2 of lineage other'),
      }) as Error,
    );
  });

  it('indexes resources by address', () => {
    const index = indexByAddress(stateDoc(1, [profile(1), profile(2)]));
    expect(index.get(profile(2).address)).toEqual(profile(2));
    expect(index.size).toBe(2);
  });
});

describe('applyRescue', () => {
  const adopted = (n: number) => ({ ...profile(n, null), adopted: true });

  it('never replaces a recorded id with none, and says which records it kept', () => {
    const doc = stateDoc(4, [profile(1, 'tep_fromB'), adopted(2)]);
    const { doc: next, kept } = applyRescue(
      doc,
      [putEntry(adopted(1)), putEntry(profile(2, 'tep_fromA')), putEntry(adopted(3))],
      'rescue file r.json',
    );
    expect(next.resources).toEqual([profile(1, 'tep_fromB'), profile(2, 'tep_fromA'), adopted(3)]);
    expect(kept).toEqual([profile(1, 'tep_fromB')]);
  });

  it('still applies removes and refuses another lineage, as a journal', () => {
    const doc = stateDoc(1, [profile(1)]);
    expect(applyRescue(doc, [remove(1)], 'r').doc.resources).toEqual([]);
    expect(() => applyRescue(doc, [putEntry(profile(2), 'other')], 'rescue file r.json')).toThrow(
      /rescue file r\.json holds entry 1 of lineage other/,
    );
  });
});

describe('compare-and-set rule', () => {
  const stored = { lineage: 'a', serial: 3 };
  it.each([
    ['nothing stored, expected none', null, null, { lineage: 'a', serial: 1 }],
    ['matching lineage and serial', stored, stored, { lineage: 'a', serial: 4 }],
    ['no expectation, higher serial', stored, undefined, { lineage: 'a', serial: 9 }],
    ['no expectation, another lineage (a migration)', stored, undefined, { lineage: 'b', serial: 1 }],
  ] as const)('allows %s', (_label, current, expected, next) => {
    expect(() => checkCompareAndSet(current, expected, next, 'x')).not.toThrow();
  });

  it.each([
    [
      'a stored state when none was expected',
      stored,
      null,
      { lineage: 'a', serial: 4 },
      'expected no state, found lineage a serial 3',
    ],
    [
      'no state when one was expected',
      null,
      stored,
      { lineage: 'a', serial: 4 },
      'expected lineage a serial 3, found no state',
    ],
    [
      'another serial',
      { lineage: 'a', serial: 5 },
      stored,
      { lineage: 'a', serial: 4 },
      'found lineage a serial 5',
    ],
    [
      'another lineage',
      { lineage: 'b', serial: 3 },
      stored,
      { lineage: 'a', serial: 4 },
      'found lineage b serial 3',
    ],
    ['a serial that does not grow', stored, undefined, { lineage: 'a', serial: 3 }, 'needs a higher serial'],
  ] as const)('refuses %s with STATE_CONFLICT', (_label, current, expected, next, message) => {
    let caught: unknown;
    try {
      checkCompareAndSet(current, expected, next, '/tmp/state.json');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StateError);
    expect((caught as StateError).code).toBe('STATE_CONFLICT');
    expect((caught as StateError).message).toContain(message);
    expect((caught as StateError).message).toContain('/tmp/state.json');
  });
});

describe('copyJson', () => {
  it('copies JSON data deeply: nothing of the copy is shared with the original', () => {
    const original = { a: [1, { b: 'x' }], c: { d: null, e: true }, f: undefined };
    const copy = copyJson(original);
    expect(copy).toEqual(original);
    expect(Object.keys(copy)).toEqual(['a', 'c', 'f']);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a[1]).not.toBe(original.a[1]);
    expect(copy.c).not.toBe(original.c);
  });

  it('copies a "__proto__" key as a key, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "x": 2}') as Record<string, unknown>;
    const copy = copyJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'x']);
    expect((copy as { polluted?: number }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":1},"x":2}');
  });
});
