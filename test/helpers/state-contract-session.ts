import { beforeEach, describe, expect, it } from 'vitest';
import {
  holderInfo,
  open,
  profile,
  putEntry,
  rejection,
  stateCode,
  stateDoc,
} from './state-contract-fixtures.js';
import { LockError, type StateError } from '../../src/state/errors.js';
import { openState, readStateSnapshot } from '../../src/state/session.js';
import type { StateStore } from '../../src/state/types.js';

/** What the contract's cases need: the store under test, a second handle on its storage, raw access. */
export interface ContractContext {
  store(): StateStore;
  second(): Promise<StateStore>;
  raw?: {
    write(store: StateStore, text: string): Promise<void>;
    read(store: StateStore): Promise<string | null>;
  };
}

/** The lock, session and unreadable-document cases of the contract. */
export function defineLockAndSessionCases(ctx: ContractContext): void {
  const second = () => ctx.second();
  let store: StateStore;
  beforeEach(() => {
    store = ctx.store();
  });

  describe('lock', () => {
    it('refuses a second holder with a LockError naming pid, host, command and since', async () => {
      const mine = await store.lock(holderInfo('apply'));
      expect(mine).toMatchObject(holderInfo('apply'));
      const err = await rejection((await second()).lock(holderInfo('plan')));
      expect(err).toBeInstanceOf(LockError);
      expect((err as LockError).code).toBe('STATE_LOCKED');
      expect((err as LockError).holder).toEqual(mine);
      expect((err as LockError).message).toContain(
        'locked by apply (pid 4242 on host ci-7) since 2026-11-21T10:00:00.000Z',
      );
      expect((err as LockError).message).toContain('force-unlock');
    });

    it('is free again after unlock', async () => {
      const mine = await store.lock(holderInfo('apply'));
      await store.unlock(mine.id);
      const next = await (await second()).lock(holderInfo('import'));
      expect(next.command).toBe('import');
      expect(next.id).not.toBe(mine.id);
    });

    it('waits while held and takes the lock once the holder releases it', async () => {
      const mine = await store.lock(holderInfo('apply'));
      const other = await second();
      const sleeps: number[] = [];
      const sleep = async (ms: number) => {
        sleeps.push(ms);
        if (sleeps.length === 2) await store.unlock(mine.id);
      };
      const taken = await other.lock(holderInfo('import'), { timeoutMs: 60_000, sleep });
      expect(taken.command).toBe('import');
      expect(sleeps).toHaveLength(2);
    });

    it('gives up after timeoutMs of waiting, with the holder in the error', async () => {
      const mine = await store.lock(holderInfo('apply'));
      const sleeps: number[] = [];
      const err = await rejection(
        (await second()).lock(holderInfo('import'), {
          timeoutMs: 1000,
          sleep: async (ms) => void sleeps.push(ms),
        }),
      );
      expect((err as LockError).holder).toEqual(mine);
      expect(sleeps.reduce((a, b) => a + b, 0)).toBe(1000);
    });

    it('ignores unlock with another holder id', async () => {
      await store.lock(holderInfo('apply'));
      await (await second()).unlock('not-the-holder');
      expect(await rejection(store.lock(holderInfo('plan')))).toBeInstanceOf(LockError);
    });

    it('forceUnlock removes any lock and returns its holder, or null when unlocked', async () => {
      expect(await store.forceUnlock()).toBeNull();
      const mine = await store.lock(holderInfo('apply'));
      expect(await (await second()).forceUnlock()).toEqual(mine);
      expect(await store.forceUnlock()).toBeNull();
      await store.lock(holderInfo('plan'));
    });
  });

  describe('session', () => {
    it('records operations, then commits them as serial + 1 with an empty journal', async () => {
      await store.write(stateDoc(4, [profile(0)]), null);
      const session = await open(store);
      for (let i = 1; i <= 5; i++) await session.record({ op: 'put', resource: profile(i) });
      await session.record({ op: 'remove', address: profile(0).address });
      expect(session.doc.resources.map((r) => r.id)).toEqual(['tep_1', 'tep_2', 'tep_3', 'tep_4', 'tep_5']);
      expect(await store.read()).toEqual(stateDoc(4, [profile(0)]));
      const committed = await session.commit();
      await session.release();
      expect(committed.serial).toBe(5);
      expect(await store.read()).toEqual(committed);
      expect(await store.readJournal()).toEqual([]);
    });

    it('starts an empty document on a new store and writes nothing without changes', async () => {
      const session = await open(store);
      expect(session.doc).toEqual(stateDoc(0));
      expect((await session.commit()).serial).toBe(0);
      await session.release();
      expect(await store.read()).toBeNull();
    });

    it('holds the lock until release, which is idempotent', async () => {
      const session = await open(store);
      const err = await rejection(open(await second(), 'plan'));
      expect((err as LockError).holder).toEqual(session.lock);
      await session.release();
      await session.release();
      await (await open(await second(), 'plan')).release();
    });

    it('replays the journal of a session dropped without commit (a crash)', async () => {
      await store.write(stateDoc(7, [profile(0), profile(1)]), null);
      const crashed = await open(store);
      await crashed.record({ op: 'put', resource: profile(2) });
      await crashed.record({ op: 'remove', address: profile(0).address });
      await crashed.record({ op: 'put', resource: profile(1, 'tep_new') });
      expect(await store.forceUnlock()).toEqual(crashed.lock);

      const snapshot = await readStateSnapshot(await second());
      expect(snapshot).toEqual(stateDoc(8, [profile(1, 'tep_new'), profile(2)]));
      expect(await store.read()).toEqual(stateDoc(7, [profile(0), profile(1)]));

      const next = await open(await second());
      expect(next.doc).toEqual(stateDoc(8, [profile(1, 'tep_new'), profile(2)]));
      await next.release();
      expect(await store.read()).toEqual(next.doc);
      expect(await store.readJournal()).toEqual([]);
    });

    it('replays a crashed first session under its own lineage when nothing was stored', async () => {
      const crashed = await openState(store, { command: 'apply', lineage: () => 'first-lineage' });
      await crashed.record({ op: 'put', resource: profile(1) });
      await store.forceUnlock();
      const next = await openState(store, { command: 'apply', lineage: () => 'never-used' });
      await next.release();
      expect(await store.read()).toEqual(stateDoc(1, [profile(1)], 'first-lineage'));
    });

    it('refuses a journal of another lineage and releases the lock', async () => {
      await store.write(stateDoc(1), null);
      await store.appendJournal([putEntry(profile(1), 'other-lineage')]);
      expect(await stateCode(open(store))).toBe('STATE_CORRUPT');
      expect(await store.readJournal()).toHaveLength(1);
      await store.lock(holderInfo('apply'));
    });

    it('refuses to record an invalid resource and leaves the journal as it was', async () => {
      const session = await open(store);
      const bad = { ...profile(1), address: 'token_exchange_profile["something else"]' };
      expect(await stateCode(session.record({ op: 'put', resource: bad }))).toBe('STATE_INVALID');
      expect(await store.readJournal()).toEqual([]);
      await session.release();
    });

    it('binds the tenant at once with what was recorded, once, and keeps it through commits and reopening', async () => {
      const tenant = { host: 'tenant.example.com', api_base: 'https://tenant.example.com/api/v2' };
      await store.write(stateDoc(2, [profile(1)]), null);
      const session = await open(store);
      await session.record({ op: 'put', resource: profile(2) });
      await session.bindTenant(tenant);
      expect(await store.read()).toEqual({ ...stateDoc(3, [profile(1), profile(2)]), tenant });
      expect(await store.readJournal()).toEqual([]);
      await session.bindTenant({ ...tenant });
      await session.record({ op: 'remove', address: profile(1).address });
      expect(await session.commit()).toEqual({ ...stateDoc(4, [profile(2)]), tenant });
      await session.release();
      const again = await open(store);
      expect(again.doc.tenant).toEqual(tenant);
      await again.release();
    });

    it('replace stores a whole document with serial + 1', async () => {
      await store.write(stateDoc(2, [profile(1), profile(2)]), null);
      const session = await open(store, 'state rm');
      await session.replace(stateDoc(99, [profile(2)]));
      expect(session.doc).toEqual(stateDoc(3, [profile(2)]));
      await session.release();
      expect(await store.read()).toEqual(stateDoc(3, [profile(2)]));
    });
  });

  const raw = ctx.raw;
  describe.runIf(raw !== undefined)('stored documents it cannot read', () => {
    it.each([
      [
        'an unknown format_version',
        JSON.stringify({ ...stateDoc(3), format_version: 3 }),
        'STATE_UNKNOWN_VERSION',
        /format_version 3.*format_version 1 and 2/,
      ],
      [
        'text that is not JSON',
        '{"format_version": 1, "lineage": "x", "ser',
        'STATE_CORRUPT',
        /not valid JSON/,
      ],
      [
        'a document missing a field',
        JSON.stringify({ format_version: 1, lineage: 'x', resources: [] }),
        'STATE_CORRUPT',
        /serial/,
      ],
    ])(
      'refuses %s on read, on write and in openState, and never overwrites it',
      async (_label, text, code, message) => {
        await raw!.write(store, text);
        const readErr = await rejection(store.read());
        expect((readErr as StateError).code).toBe(code);
        expect((readErr as StateError).message).toMatch(message);
        expect((readErr as StateError).message).toContain('left untouched');
        expect(await stateCode(store.write(stateDoc(10)))).toBe(code);
        expect(await stateCode(store.write(stateDoc(10), null))).toBe(code);
        expect(await stateCode(open(store))).toBe(code);
        expect(await raw!.read(store)).toBe(text);
        await store.lock(holderInfo('apply'));
      },
    );
  });
}
