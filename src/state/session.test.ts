import { describe, expect, it } from 'vitest';
import { profile, putEntry, stateDoc } from '../../test/helpers/state-contract.js';
import { StateError } from './errors.js';
import { createMemoryStateStore, readRawMemoryState } from './memory-store.js';
import { openState, readStateSnapshot } from './session.js';
import type { JournalEntry, SessionStore, StateStore } from './types.js';

const LINEAGE = 'contract-lineage-a';
const options = {
  command: 'apply',
  host: 'ci-7',
  pid: 4242,
  now: () => new Date('2026-11-21T10:00:00Z'),
  lineage: () => LINEAGE,
};

/**
 * `store` as the narrow SessionStore openState is typed against (no plan key,
 * no close), with some of its methods replaced.
 */
function sessionStore(store: StateStore, overrides: Partial<SessionStore>): SessionStore {
  return {
    description: store.description,
    read: () => store.read(),
    write: (doc, expected) => store.write(doc, expected),
    readJournal: () => store.readJournal(),
    appendJournal: (entries) => store.appendJournal(entries),
    clearJournal: () => store.clearJournal(),
    lock: (info, lockOptions) => store.lock(info, lockOptions),
    unlock: (id) => store.unlock(id),
    forceUnlock: () => store.forceUnlock(),
    ...overrides,
  };
}

/** A memory store whose appends wait until released, or fail when told to. */
function gatedStore(initial = stateDoc(1)) {
  const store = createMemoryStateStore(initial);
  const gates: (() => void)[] = [];
  let failNext = false;
  let held = false;
  const gated = sessionStore(store, {
    async appendJournal(entries: readonly JournalEntry[]) {
      if (failNext) {
        failNext = false;
        throw new StateError('STATE_IO', 'could not append: disk full');
      }
      if (held) await new Promise<void>((resolve) => gates.push(resolve));
      return store.appendJournal(entries);
    },
  });
  return {
    store: gated,
    hold: () => (held = true),
    releaseAll: () => {
      held = false;
      gates.splice(0).forEach((g) => g());
    },
    failNext: () => (failNext = true),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('state session', () => {
  it('takes the lock with the command, pid, host and time it was given', async () => {
    const store = createMemoryStateStore();
    const session = await openState(store, options);
    expect(session.lock).toMatchObject({
      command: 'apply',
      pid: 4242,
      host: 'ci-7',
      since: '2026-11-21T10:00:00.000Z',
    });
    await session.release();
  });

  it('waits for the lock up to lockTimeoutMs using the injected sleep', async () => {
    const store = createMemoryStateStore();
    const first = await openState(store, options);
    let slept = 0;
    const second = await openState(store, {
      ...options,
      command: 'import',
      lockTimeoutMs: 5000,
      sleep: async (ms) => {
        slept += ms;
        await first.release();
      },
    });
    expect(slept).toBeGreaterThan(0);
    expect(second.lock.command).toBe('import');
    await second.release();
  });

  it('shows a recorded operation in doc only after its journal append resolved', async () => {
    const gate = gatedStore();
    const session = await openState(gate.store, options);
    gate.hold();
    const pending = session.record({ op: 'put', resource: profile(1) });
    await flush();
    expect(session.doc.resources).toEqual([]);
    gate.releaseAll();
    await pending;
    expect(session.doc.resources).toEqual([profile(1)]);
    await session.release();
  });

  it('commit waits for records still in flight', async () => {
    const gate = gatedStore();
    const session = await openState(gate.store, options);
    gate.hold();
    const records = [1, 2, 3].map((n) => session.record({ op: 'put', resource: profile(n) }));
    const committed = session.commit();
    await flush();
    gate.releaseAll();
    await Promise.all(records);
    expect((await committed).resources).toEqual([profile(1), profile(2), profile(3)]);
    expect((await committed).serial).toBe(2);
    await session.release();
  });

  it('asks the store to make the records in flight durable at once when committing, and on flush', async () => {
    const gate = gatedStore();
    let flushes = 0;
    const store: SessionStore = {
      ...gate.store,
      flushJournal: () => {
        flushes++;
        gate.releaseAll(); // the journal's commit interval, ended
      },
    };
    const session = await openState(store, options);
    gate.hold();
    const record = session.record({ op: 'put', resource: profile(1) });
    session.flush();
    expect(flushes).toBe(1);
    await record;
    gate.hold();
    const held = session.record({ op: 'put', resource: profile(2) });
    await flush();
    const committed = session.commit();
    await flush();
    expect(flushes).toBe(2);
    await held;
    expect((await committed).resources).toEqual([profile(1), profile(2)]);
    await session.release();
  });

  it('makes a record issued during commit wait, so that clearing the journal cannot drop it', async () => {
    const store = createMemoryStateStore(stateDoc(1));
    let releaseWrite!: () => void;
    const writeHeld = new Promise<void>((resolve) => (releaseWrite = resolve));
    const slow = sessionStore(store, {
      async write(doc, expected) {
        await writeHeld;
        return store.write(doc, expected);
      },
    });
    const session = await openState(slow, options);
    await session.record({ op: 'put', resource: profile(1) });
    const committing = session.commit();
    await flush();
    const late = session.record({ op: 'put', resource: profile(2) });
    await flush();
    releaseWrite();
    expect((await committing).resources).toEqual([profile(1)]);
    await late;
    expect(await store.readJournal()).toEqual([putEntry(profile(2))]);
    expect(session.doc.resources).toEqual([profile(1), profile(2)]);
    expect((await session.commit()).serial).toBe(3);
    expect(await store.read()).toEqual(stateDoc(3, [profile(1), profile(2)]));
    await session.release();
  });

  it('leaves doc unchanged and commits nothing when the journal append fails', async () => {
    const gate = gatedStore();
    const session = await openState(gate.store, options);
    gate.failNext();
    await expect(session.record({ op: 'put', resource: profile(1) })).rejects.toMatchObject({
      code: 'STATE_IO',
    });
    expect(session.doc).toEqual(stateDoc(1));
    expect((await session.commit()).serial).toBe(1);
    await session.release();
  });

  it('keeps serials growing across several commits in one session', async () => {
    const store = createMemoryStateStore(stateDoc(1));
    const session = await openState(store, options);
    await session.record({ op: 'put', resource: profile(1) });
    expect((await session.commit()).serial).toBe(2);
    await session.record({ op: 'remove', address: profile(1).address });
    expect((await session.commit()).serial).toBe(3);
    expect(await store.read()).toEqual(stateDoc(3));
    await session.release();
  });

  it('fails commit with STATE_CONFLICT when someone else wrote the state meanwhile', async () => {
    const store = createMemoryStateStore(stateDoc(1));
    const session = await openState(store, options);
    await session.record({ op: 'put', resource: profile(1) });
    await store.write(stateDoc(2, [profile(7)]));
    await expect(session.commit()).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
    expect(await store.readJournal()).toHaveLength(1);
    await session.release();
  });

  it('refuses use after release', async () => {
    const session = await openState(createMemoryStateStore(), options);
    await session.release();
    await expect(session.record({ op: 'put', resource: profile(1) })).rejects.toMatchObject({
      code: 'STATE_IO',
    });
    await expect(session.commit()).rejects.toMatchObject({ code: 'STATE_IO' });
  });

  it('refuses a replace that changes the lineage', async () => {
    const session = await openState(createMemoryStateStore(stateDoc(1)), options);
    await expect(session.replace(stateDoc(1, [], 'other'))).rejects.toMatchObject({ code: 'STATE_INVALID' });
    await session.release();
  });

  it('does not keep a reference to the caller’s resource object', async () => {
    const session = await openState(createMemoryStateStore(), options);
    const resource = profile(1);
    await session.record({ op: 'put', resource });
    resource.id = 'tep_mutated';
    expect(session.doc.resources[0]?.id).toBe('tep_1');
    await session.release();
  });

  it('keeps its own copy of nested attributes and identity too', async () => {
    const session = await openState(createMemoryStateStore(), options);
    const resource = profile(1);
    const before = structuredClone(resource);
    await session.record({ op: 'put', resource });
    resource.identity[0] = 'urn:mutated';
    (resource.attributes as Record<string, unknown>).name = 'mutated';
    expect(session.doc.resources[0]).toEqual(before);
    await session.release();
  });
});

describe('state snapshot for plan', () => {
  it('is null when nothing was ever recorded', async () => {
    expect(await readStateSnapshot(createMemoryStateStore())).toBeNull();
  });

  it('is the stored document when no journal is pending', async () => {
    expect(await readStateSnapshot(createMemoryStateStore(stateDoc(3, [profile(1)])))).toEqual(
      stateDoc(3, [profile(1)]),
    );
  });

  it('applies a pending journal in memory with the serial its compaction will get, and writes nothing', async () => {
    const store = createMemoryStateStore(stateDoc(3, [profile(1)]));
    await store.appendJournal([putEntry(profile(2))]);
    const before = readRawMemoryState(store);
    expect(await readStateSnapshot(store)).toEqual(stateDoc(4, [profile(1), profile(2)]));
    expect(readRawMemoryState(store)).toBe(before);
    expect(await store.readJournal()).toHaveLength(1);
    const session = await openState(store, options);
    expect(session.doc).toEqual(stateDoc(4, [profile(1), profile(2)]));
    await session.release();
  });

  it('does not need the lock', async () => {
    const store = createMemoryStateStore(stateDoc(1));
    const session = await openState(store, options);
    expect(await readStateSnapshot(store)).toEqual(stateDoc(1));
    await session.release();
  });
});

describe('rescue files replayed when a state is opened', () => {
  const adopted = (n: number) => ({ ...profile(n, null), adopted: true });
  const rescueFile = (entries: JournalEntry[]) => ({
    path: '/tmp/tenantform-rescue-x.json',
    kind: 'log' as const,
    state: 'memory',
    lineage: LINEAGE,
    entries,
  });

  it('keeps a recorded id that the file has adopted without one, says so, and applies the rest', async () => {
    const store = createMemoryStateStore(stateDoc(3, [profile(1, 'tep_recorded')]));
    const file = rescueFile([putEntry(adopted(1)), putEntry(profile(2, 'tep_rescued'))]);
    const session = await openState(store, { ...options, rescue: [file] });
    expect(session.doc.resources).toEqual([profile(1, 'tep_recorded'), profile(2, 'tep_rescued')]);
    expect(session.rescued.kept).toEqual([{ file, record: profile(1, 'tep_recorded') }]);
    await session.release();
    const snapshot = await readStateSnapshot(store, { rescue: [file] });
    expect(snapshot!.resources[0]).toEqual(profile(1, 'tep_recorded'));
  });
});
