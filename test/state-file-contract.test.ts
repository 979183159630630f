import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runStateStoreContract } from './helpers/state-contract.js';
import { createFileStateStore } from '../src/state/file-store.js';
import {
  createMemoryStateStore,
  openMemoryHandle,
  readRawMemoryState,
  writeRawMemoryState,
} from '../src/state/memory-store.js';

runStateStoreContract('memory', async () => ({ store: createMemoryStateStore(), cleanup: async () => {} }), {
  makeSecondHandle: async (store) => openMemoryHandle(store),
  raw: {
    write: async (store, text) => writeRawMemoryState(store, text),
    read: async (store) => readRawMemoryState(store),
  },
});

runStateStoreContract(
  'file',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tenantform-state-'));
    return {
      store: createFileStateStore(join(dir, '.tenantform', 'state.json')),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  {
    makeSecondHandle: async (store) => createFileStateStore(store.description),
    raw: {
      write: async (store, text) => {
        await mkdir(dirname(store.description), { recursive: true });
        await writeFile(store.description, text);
      },
      read: async (store) => readFile(store.description, 'utf8').catch(() => null),
    },
  },
);
