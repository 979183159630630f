import { describe, expect, it } from 'vitest';
import { formatAddress, type RecordedResource } from '../resources/index.js';
import { emptyState } from './document.js';
import { createMemoryStateStore } from './memory-store.js';
import { lockHolding, recordAt, recordLines, removeLock, removeRecord, repairJournal } from './records.js';
import type { StateDocument } from './types.js';

function profile(name: string, id: string | null, adopted = false): RecordedResource {
  const identity = [`urn:example:token:${name}`];
  return {
    kind: 'token_exchange_profile',
    address: formatAddress('token_exchange_profile', identity),
    identity,
    attributes: {
      name: `profile ${name}`,
      subject_token_type: identity[0],
      action_id: 'a1b2c3d4-0000-4000-8000-000000000001',
      type: 'custom_authentication',
    },
    id,
    ...(adopted ? { adopted: true } : {}),
  };
}

function stateWith(...resources: RecordedResource[]): StateDocument {
  return { ...emptyState('lineage-1'), serial: 1, resources };
}

const holder = { pid: 1, host: 'here', command: 'test', since: '2026-01-01T00:00:00.000Z' };

describe('the state commands as data', () => {
  it('recordLines: every record with its id, whether adopted and its problems; none for no state', () => {
    const twice = stateWith(profile('a', 'tep_1'), profile('b', 'tep_1'), profile('c', null, true));
    const lines = recordLines(twice);
    expect(lines.map((l) => [l.id, l.adopted, l.problems.length])).toEqual([
      ['tep_1', false, 0],
      ['tep_1', false, 1],
      [null, true, 0],
    ]);
    expect(lines[1]!.problems[0]).toMatch(/is also recorded for/);
    expect(recordLines(null)).toEqual([]);
  });

  it('recordAt: the record and its problems, or null', () => {
    const doc = stateWith(profile('a', 'tep_1'), profile('b', 'tep_1'));
    expect(recordAt(doc, profile('a', null).address)).toEqual({
      record: profile('a', 'tep_1'),
      problems: [],
    });
    expect(recordAt(doc, profile('b', null).address)!.problems).toHaveLength(1);
    expect(recordAt(doc, profile('z', null).address)).toBeNull();
    expect(recordAt(null, profile('a', null).address)).toBeNull();
  });

  it('removeRecord: records and commits the removal; false when the address is not recorded', async () => {
    const recorded: unknown[] = [];
    const session = {
      doc: stateWith(profile('a', 'tep_1')),
      record: (entry: unknown) => Promise.resolve(void recorded.push(entry)),
      commit: () => Promise.resolve(void recorded.push('commit') as never),
    };
    expect(await removeRecord(session, profile('z', null).address)).toBe(false);
    expect(recorded).toEqual([]);
    expect(await removeRecord(session, profile('a', null).address)).toBe(true);
    expect(recorded).toEqual([{ op: 'remove', address: profile('a', null).address }, 'commit']);
  });

  it('repairJournal: nothing to do where the backend keeps no journal file; else under the lock, released after', async () => {
    const store = createMemoryStateStore();
    expect(await repairJournal({ ...lockerOf(store) }, holder, 0)).toEqual({ kind: 'no-journal-file' });
    const result = { kept: 3, dropped: [4], backup: '/x.bak' };
    let heldDuring: unknown;
    const repairing = {
      ...lockerOf(store),
      repairJournal: async () => {
        heldDuring = await lockHolding(store);
        return result;
      },
    };
    expect(await repairJournal(repairing, holder, 0)).toEqual({ kind: 'repaired', ...result });
    expect(heldDuring).toMatchObject({ kind: 'held', holder: { command: 'test' } });
    expect(await lockHolding(store)).toEqual({ kind: 'unlocked' });
  });

  it('lockHolding and removeLock: the holder and whether it is gone; unknown when the backend cannot say', async () => {
    const store = createMemoryStateStore();
    expect(await lockHolding({})).toEqual({ kind: 'unknown' });
    expect(await removeLock(store)).toBeNull();
    await store.lock({ ...holder, host: 'another-host' });
    expect(await lockHolding(store)).toMatchObject({ kind: 'held', status: 'unknown' });
    expect(await removeLock(store)).toMatchObject({ holder: { host: 'another-host' }, gone: false });
    expect(await lockHolding(store)).toEqual({ kind: 'unlocked' });
  });
});

/** The locking part of a store, without its repairJournal. */
function lockerOf(store: ReturnType<typeof createMemoryStateStore>) {
  return {
    description: store.description,
    lock: store.lock.bind(store),
    unlock: store.unlock.bind(store),
    forceUnlock: store.forceUnlock.bind(store),
    ...(store.lockHolder ? { lockHolder: store.lockHolder.bind(store) } : {}),
  };
}
