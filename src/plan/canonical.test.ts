import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalKeys, changedPaths, compareStrings, deepEqual } from './canonical.js';

describe('deepEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['equal scalars', 1, 1, true],
    ['different scalars', 1, '1', false],
    ['null and an object', null, {}, false],
    ['objects in another key order', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['a key holding undefined and a missing key', { a: 1, b: undefined }, { a: 1 }, true],
    ['arrays in another order', [1, 2], [2, 1], false],
    ['an array and an object', [1], { 0: 1 }, false],
    ['nested arrays of objects', [{ x: [1, { y: 2 }] }], [{ x: [1, { y: 2 }] }], true],
  ])('compares %s', (_label, a, b, expected) => {
    expect(deepEqual(a, b)).toBe(expected);
    expect(deepEqual(b, a)).toBe(expected);
  });
});

describe('changedPaths', () => {
  it('names nested fields with dots, sorted', () => {
    expect(
      changedPaths({ c: { limit: 1, action: 'a' }, z: 1 }, { c: { limit: 2, action: 'b' }, z: 1, y: 3 }),
    ).toEqual(['c.action', 'c.limit', 'y']);
  });

  it('names an array that differs as one field', () => {
    expect(changedPaths({ p: [1, 2] }, { p: [1, 3] })).toEqual(['p']);
  });

  it('returns nothing for equal values', () => {
    expect(changedPaths({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe('canonicalize', () => {
  it('puts the given keys first, then sorts the rest at every level', () => {
    const out = canonicalize({ z: 1, b: { y: 1, x: 2 }, id: 3, a: undefined }, ['id', 'z']);
    expect(JSON.stringify(out)).toBe('{"id":3,"z":1,"b":{"x":2,"y":1}}');
  });
});

describe('canonicalKeys', () => {
  it('lists the given keys it has first, in their order, then the rest sorted; undefined values left out', () => {
    expect(canonicalKeys({ z: 1, b: 2, id: 3, a: undefined, y: undefined }, ['id', 'y', 'z', 'q'])).toEqual([
      'id',
      'z',
      'b',
    ]);
    expect(canonicalKeys({ b: 1, B: 2, a: 3 })).toEqual(['B', 'a', 'b']);
  });
});

describe('compareStrings', () => {
  it('orders by code unit, not by locale', () => {
    expect(['b', 'B', 'a', 'é', 'A'].sort(compareStrings)).toEqual(['A', 'B', 'a', 'b', 'é']);
  });
});
