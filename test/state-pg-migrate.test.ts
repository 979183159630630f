import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { profile, putEntry, stateDoc } from './helpers/state-contract.js';
import type { StateError } from '../src/state/errors.js';
import { createFileStateStore, openState, type StateStore } from '../src/state/index.js';
import { MigrateError, migrateState, type PgStateStore } from '../src/state/pg/index.js';
import { describePg, dropWorkspace, pgStore } from './state-pg-support.js';
import { messageOf } from '../src/cli/run-words.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fileStore(): Promise<StateStore> {
  const dir = await mkdtemp(join(tmpdir(), 'tenantform-migrate-'));
  const store = createFileStateStore(join(dir, 'state.json'));
  cleanups.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return store;
}

function workspaceStore(): PgStateStore {
  const store = pgStore();
  cleanups.push(async () => {
    await store.close();
    await dropWorkspace(store.workspace);
  });
  return store;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describePg('migrateState: file → pg', () => {
  it('copies the document with its leftover journal replayed, and leaves the file as it was', async () => {
    const file = await fileStore();
    await file.write(stateDoc(4, [profile(1), profile(2)]), null);
    await file.appendJournal([
      putEntry(profile(3)),
      { v: 1, lineage: stateDoc(0).lineage, op: 'remove', address: profile(1).address },
    ]);
    const before = await readFile(file.description, 'utf8');
    const pg = workspaceStore();

    expect(await migrateState(file, pg)).toEqual({ resources: 2, serial: 5 });
    expect(await pg.read()).toEqual(stateDoc(5, [profile(2), profile(3)]));
    expect(await pg.readJournal()).toEqual([]);
    expect(await readFile(file.description, 'utf8')).toBe(before);
    expect(await file.readJournal()).toHaveLength(2);

    const session = await openState(pg, { command: 'apply' });
    expect(session.doc.lineage).toBe(stateDoc(0).lineage);
    await session.release();
  });

  it('changes nothing when run again', async () => {
    const file = await fileStore();
    await file.write(stateDoc(2, [profile(1)]), null);
    const pg = workspaceStore();
    await migrateState(file, pg);
    expect(await migrateState(file, pg)).toEqual({ resources: 1, serial: 2 });
    expect(await pg.history()).toEqual([]);
  });

  it('refuses a target holding another lineage unless forced', async () => {
    const file = await fileStore();
    await file.write(stateDoc(2, [profile(1)]), null);
    const pg = workspaceStore();
    await pg.write(stateDoc(9, [profile(7)], 'another-lineage'), null);

    const err = await rejection(migrateState(file, pg));
    expect((err as StateError).code).toBe('STATE_CONFLICT');
    expect(err.message).toContain(
      'already holds another state (lineage another-lineage, serial 9, 1 resources)',
    );
    expect(messageOf(err)).toContain('--force');
    expect((await pg.read())?.lineage).toBe('another-lineage');

    expect(await migrateState(file, pg, { force: true })).toEqual({ resources: 1, serial: 2 });
    expect(await pg.read()).toEqual(stateDoc(2, [profile(1)]));
    expect((await pg.history())[0]?.lineage).toBe('another-lineage');
  });

  it('refuses a target holding a newer serial of the same lineage unless forced, then moves past it', async () => {
    const file = await fileStore();
    await file.write(stateDoc(2, [profile(1)]), null);
    const pg = workspaceStore();
    await pg.write(stateDoc(6, [profile(8)]), null);
    expect(((await rejection(migrateState(file, pg))) as StateError).code).toBe('STATE_CONFLICT');
    expect(await migrateState(file, pg, { force: true })).toEqual({ resources: 1, serial: 7 });
  });

  it('refuses a source with nothing in it (a mistyped path)', async () => {
    const file = await fileStore();
    const err = await rejection(migrateState(file, workspaceStore()));
    expect(err).toBeInstanceOf(MigrateError);
    expect(err.message).toContain('nothing to migrate');
  });

  it('waits for neither lock: a locked target fails at once and the source lock is released', async () => {
    const file = await fileStore();
    await file.write(stateDoc(1), null);
    const pg = workspaceStore();
    const held = await pg.lock({
      pid: 1,
      host: 'runner-9',
      command: 'apply',
      since: '2026-11-21T10:00:00.000Z',
    });
    expect((await rejection(migrateState(file, pg))).message).toContain(
      'locked by apply (pid 1 on host runner-9)',
    );
    const fileLock = await file.lock({ pid: 2, host: 'h', command: 'plan', since: 'now' });
    expect(fileLock.command).toBe('plan');
    await pg.unlock(held.id);
  });

  it('copies back from pg into a file', async () => {
    const pg = workspaceStore();
    await pg.write(stateDoc(3, [profile(1)]), null);
    const file = await fileStore();
    expect(await migrateState(pg, file)).toEqual({ resources: 1, serial: 3 });
    expect(await file.read()).toEqual(stateDoc(3, [profile(1)]));
  });
});
