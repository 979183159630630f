/**
 * The StateStore contract: one vitest suite every backend must pass (file,
 * memory, pg). Call runStateStoreContract from a backend's test file.
 * Not exported from index.ts, since it imports vitest.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holderInfo, LINEAGE, profile, putEntry, stateCode, stateDoc } from './state-contract-fixtures.js';
import { defineLockAndSessionCases, type ContractContext } from './state-contract-session.js';
import type { StateDocument, StateStore } from '../../src/state/types.js';

export { profile, putEntry, stateDoc } from './state-contract-fixtures.js';

export interface StateStoreContractOptions {
  /** Another handle on the same backing storage (a second process or connection). Defaults to the same handle. */
  makeSecondHandle?: (store: StateStore) => Promise<StateStore>;
  /** Reads and writes the stored document's raw text, bypassing validation; enables the refusal tests. */
  raw?: ContractContext['raw'];
}

export function runStateStoreContract(
  name: string,
  makeStore: () => Promise<{ store: StateStore; cleanup: () => Promise<void> }>,
  options: StateStoreContractOptions = {},
): void {
  describe(`StateStore contract: ${name}`, () => {
    let store: StateStore;
    let cleanup: () => Promise<void>;
    const extra: StateStore[] = [];
    const second = async (): Promise<StateStore> => {
      if (!options.makeSecondHandle) return store;
      const other = await options.makeSecondHandle(store);
      extra.push(other);
      return other;
    };

    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      for (const other of extra.splice(0)) await other.close();
      await store.close();
      await cleanup();
    });

    describe('plan key', () => {
      it('has none until asked to make one, then keeps the same one for every handle', async () => {
        expect(await store.planKey({ create: false })).toBeNull();
        const key = await store.planKey({ create: true });
        expect(key).toHaveLength(32);
        expect(await store.planKey({ create: true })).toEqual(key);
        expect(await (await second()).planKey({ create: false })).toEqual(key);
        expect(store.planKeyWhere).not.toBe('');
      });

      it('ends with one key when two handles make it at once', async () => {
        const other = await second();
        const [a, b] = await Promise.all([store.planKey({ create: true }), other.planKey({ create: true })]);
        expect(a).toEqual(b);
      });
    });

    describe('names kept from reads of the tenant', () => {
      const known = {
        lists: {
          client: { Vb4nM7qW0eR3tYuI: { name: 'Mobile app', read_at: '2026-03-04T05:06:07.000Z' } },
          resource_server: {
            'https://api.example.com/': { name: 'Reports API', read_at: '2026-03-04T05:06:07.000Z' },
          },
        },
      };

      it('has none at first, then the last ones written, for every handle', async () => {
        expect(await store.readNames()).toBeNull();
        await store.writeNames(known);
        expect(await store.readNames()).toEqual(known);
        const renamed = {
          lists: { client: { Vb4nM7qW0eR3tYuI: { name: 'Phone app', read_at: '2026-03-05T00:00:00.000Z' } } },
        };
        await (await second()).writeNames(renamed);
        expect(await store.readNames()).toEqual(renamed);
      });

      it('are kept beside the document, never in it: no serial moves, no lock is needed', async () => {
        await store.write(stateDoc(3), null);
        await store.writeNames(known);
        expect(await store.read()).toEqual(stateDoc(3));
        const other = await second();
        await other.lock(holderInfo('apply'));
        await store.writeNames(known);
        expect(await store.readNames()).toEqual(known);
      });
    });

    describe('rate-limit facts kept from the last run', () => {
      const facts = '{"tenantform_rate_limits":1,"tenant":"https://a.example/api/v2","groups":[]}';

      it('has none at first, then the last text written, for every handle', async () => {
        expect(await store.readRateLimits()).toBeNull();
        await store.writeRateLimits(facts);
        expect(await store.readRateLimits()).toBe(facts);
        await (await second()).writeRateLimits(`${facts} `);
        expect(await store.readRateLimits()).toBe(`${facts} `);
      });

      it('are kept beside the document, never in it: no serial moves, no lock is needed', async () => {
        await store.write(stateDoc(3), null);
        await (await second()).lock(holderInfo('apply'));
        await store.writeRateLimits(facts);
        expect(await store.read()).toEqual(stateDoc(3));
        expect(await store.readRateLimits()).toBe(facts);
      });
    });

    describe('document', () => {
      it('reads null and an empty journal from a new store', async () => {
        expect(await store.read()).toBeNull();
        expect(await store.readJournal()).toEqual([]);
      });

      it('round-trips a written document with resources sorted by address', async () => {
        await store.write(stateDoc(1, [profile(2), profile(1)]), null);
        expect(await store.read()).toEqual(stateDoc(1, [profile(1), profile(2)]));
      });

      it('shows a write to another handle on the same storage', async () => {
        await store.write(stateDoc(1, [profile(1)]), null);
        expect(await (await second()).read()).toEqual(stateDoc(1, [profile(1)]));
      });

      it.each([
        ['a wrong serial', stateDoc(3), { lineage: LINEAGE, serial: 1 }],
        ['a wrong lineage', stateDoc(3), { lineage: 'other-lineage', serial: 2 }],
        ['expected = null while a document exists', stateDoc(3), null],
      ])(
        'refuses a compare-and-set write with %s (STATE_CONFLICT) and keeps the stored document',
        async (_label, next, expected) => {
          await store.write(stateDoc(2, [profile(1)]));
          expect(await stateCode(store.write(next, expected))).toBe('STATE_CONFLICT');
          expect(await store.read()).toEqual(stateDoc(2, [profile(1)]));
        },
      );

      it('refuses a compare-and-set write expecting a document when none is stored', async () => {
        expect(await stateCode(store.write(stateDoc(1), { lineage: LINEAGE, serial: 0 }))).toBe(
          'STATE_CONFLICT',
        );
        expect(await store.read()).toBeNull();
      });

      it('detects a write made through another handle since the read (lost update)', async () => {
        await store.write(stateDoc(1), null);
        await (await second()).write(stateDoc(2, [profile(9)]), { lineage: LINEAGE, serial: 1 });
        expect(await stateCode(store.write(stateDoc(2, [profile(1)]), { lineage: LINEAGE, serial: 1 }))).toBe(
          'STATE_CONFLICT',
        );
        expect(await store.read()).toEqual(stateDoc(2, [profile(9)]));
      });

      it.each([
        ['the same serial', 5],
        ['a lower serial', 4],
      ])('requires the serial to grow within a lineage: %s is refused', async (_label, serial) => {
        await store.write(stateDoc(5));
        expect(await stateCode(store.write(stateDoc(serial)))).toBe('STATE_CONFLICT');
        await store.write(stateDoc(6), { lineage: LINEAGE, serial: 5 });
        expect((await store.read())?.serial).toBe(6);
      });

      it('refuses to store a document that breaks the schema (STATE_INVALID)', async () => {
        const broken = { ...stateDoc(1), resources: [{ ...profile(1), id: 7 }] } as unknown as StateDocument;
        expect(await stateCode(store.write(broken))).toBe('STATE_INVALID');
        expect(await store.read()).toBeNull();
      });

      it('refuses to store an unknown format_version', async () => {
        const future = { ...stateDoc(1), format_version: 3 } as unknown as StateDocument;
        expect(await stateCode(store.write(future))).toBe('STATE_UNKNOWN_VERSION');
      });

      it('reads a format 1 document as the current format, and writes the current one', async () => {
        const older = { ...stateDoc(1, [profile(1)]), format_version: 1 } as unknown as StateDocument;
        expect(await stateCode(store.write(older))).toBe('STATE_UNKNOWN_VERSION');
        const raw = options.raw;
        if (!raw) return;
        await raw.write(store, JSON.stringify(older));
        expect(await store.read()).toEqual(stateDoc(1, [profile(1)]));
        await store.write(stateDoc(2, [profile(1)]), { lineage: LINEAGE, serial: 1 });
        expect(JSON.parse((await raw.read(store))!)).toMatchObject({ format_version: 2, serial: 2 });
      });
    });

    describe('journal', () => {
      it('reads entries back in append order and empties on clear', async () => {
        await store.appendJournal([putEntry(profile(3))]);
        await store.appendJournal([
          putEntry(profile(1)),
          { v: 1, lineage: LINEAGE, op: 'remove', address: profile(3).address },
        ]);
        expect(await store.readJournal()).toEqual([
          putEntry(profile(3)),
          putEntry(profile(1)),
          { v: 1, lineage: LINEAGE, op: 'remove', address: profile(3).address },
        ]);
        await store.clearJournal();
        expect(await store.readJournal()).toEqual([]);
        await store.appendJournal([putEntry(profile(4))]);
        expect(await store.readJournal()).toEqual([putEntry(profile(4))]);
      });

      it('keeps every entry of concurrent appends', async () => {
        const entries = Array.from({ length: 40 }, (_, i) => putEntry(profile(i)));
        await Promise.all(entries.map((e) => store.appendJournal([e])));
        const read = await store.readJournal();
        expect(read).toHaveLength(40);
        expect(new Set(read.map((e) => (e.op === 'put' ? e.resource.address : '')))).toEqual(
          new Set(entries.map((e) => (e.op === 'put' ? e.resource.address : ''))),
        );
      });

      it('makes appended entries readable from another handle once append resolves', async () => {
        await store.appendJournal([putEntry(profile(1)), putEntry(profile(2))]);
        expect(await (await second()).readJournal()).toEqual([putEntry(profile(1)), putEntry(profile(2))]);
      });
    });

    defineLockAndSessionCases({ store: () => store, second, raw: options.raw });
  });
}
