import { describe, expect, it } from 'vitest';
import { knownNamesDocument, knownNamesOf, mergeKnownNames, parseKnownNames } from './known-names.js';

const AT = '2026-03-04T05:06:07.000Z';

describe('known names', () => {
  it('keep a key, its name and when it was read, and nothing else a list gives (no secret)', () => {
    const known = knownNamesOf(
      {
        items: {
          client: [
            {
              key: 'Vb4nM7qW0eR3tYuI',
              name: 'Mobile app',
              attributes: { app_type: 'native', client_secret: 'sEcReT-0123456789' },
            },
            { key: 'unnamed', attributes: {} },
          ],
        },
      },
      AT,
    );
    expect(known).toEqual({ lists: { client: { Vb4nM7qW0eR3tYuI: { name: 'Mobile app', read_at: AT } } } });
    expect(JSON.stringify(knownNamesDocument(known))).not.toContain('sEcReT');
  });

  it('read back what was written; anything else (another version, a damaged entry) is left out, never an error', () => {
    const known = knownNamesOf(
      { items: { action: [{ key: 'act_1', name: 'Exchange', attributes: {} }] } },
      AT,
    );
    expect(parseKnownNames(JSON.parse(JSON.stringify(knownNamesDocument(known))))).toEqual(known);
    expect(parseKnownNames({ tenantform_names: 2, lists: {} })).toBeNull();
    expect(parseKnownNames('names')).toBeNull();
    expect(
      parseKnownNames({
        tenantform_names: 1,
        lists: {
          client: {
            a: { name: 'A', read_at: AT },
            b: { name: 7, read_at: AT },
            c: { name: 'C', read_at: 'x' },
          },
        },
      }),
    ).toEqual({ lists: { client: { a: { name: 'A', read_at: AT } } } });
  });

  it('a newer read renames what it read and keeps the rest', () => {
    const older = knownNamesOf(
      {
        items: {
          client: [
            { key: 'a', name: 'Old', attributes: {} },
            { key: 'b', name: 'B', attributes: {} },
          ],
        },
      },
      '2026-01-01T00:00:00.000Z',
    );
    const newer = knownNamesOf({ items: { client: [{ key: 'a', name: 'New', attributes: {} }] } }, AT);
    expect(mergeKnownNames(older, newer)).toEqual({
      lists: {
        client: { a: { name: 'New', read_at: AT }, b: { name: 'B', read_at: '2026-01-01T00:00:00.000Z' } },
      },
    });
  });
});
