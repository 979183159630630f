import { describe, expect, it } from 'vitest';
import { uniqueHex, uniqueId } from './random.js';

describe('ids made without node:crypto', () => {
  it('uniqueId has the form of a version 4 UUID and repeats in no call', () => {
    const ids = Array.from({ length: 10_000 }, uniqueId);
    for (const id of ids.slice(0, 100))
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uniqueHex gives the hex digits asked for', () => {
    for (const chars of [1, 4, 8]) expect(uniqueHex(chars)).toMatch(new RegExp(`^[0-9a-f]{${chars}}$`));
    expect(new Set(Array.from({ length: 1000 }, () => uniqueHex(8))).size).toBeGreaterThan(990);
  });
});
