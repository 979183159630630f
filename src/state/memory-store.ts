import { knownNamesDocument, parseKnownNames } from '../resources/index.js';
import { randomBytes, randomUUID } from './random.js';
import { checkCompareAndSet } from './document.js';
import { StateError } from './errors.js';
import { waitForLock } from './lock-wait.js';
import { checkDocumentToWrite, parseJournalText, parseStateText } from './validate.js';
import type { LockInfo, StateDocument, StateStore } from './types.js';

/** What several handles of one memory store share: the document as text, the journal lines, the lock, the plan key. */
interface Backing {
  text: string | null;
  journal: string[];
  lock: LockInfo | null;
  key: Buffer | null;
  names: string | null;
}

const backings = new WeakMap<StateStore, Backing>();
const WHERE = 'in memory';

function backingOf(store: StateStore): Backing {
  const backing = backings.get(store);
  if (!backing) throw new Error('not a memory state store');
  return backing;
}

function handle(backing: Backing): StateStore {
  let closed = false;
  const open = (): void => {
    if (closed) throw new StateError('STATE_IO', 'memory state store was closed');
  };
  const store: StateStore = {
    description: 'memory',
    planKeyWhere: 'memory',
    async planKey({ create }) {
      open();
      if (create) backing.key ??= randomBytes(32);
      return backing.key;
    },
    async readNames() {
      open();
      return backing.names === null ? null : parseKnownNames(JSON.parse(backing.names));
    },
    async writeNames(known) {
      open();
      backing.names = JSON.stringify(knownNamesDocument(known));
    },
    async read() {
      open();
      return backing.text === null ? null : parseStateText(backing.text, `state ${WHERE}`);
    },
    async write(doc: StateDocument, expected) {
      open();
      const next = checkDocumentToWrite(doc, WHERE);
      let previous: StateDocument | null = null;
      if (backing.text !== null) {
        try {
          previous = parseStateText(backing.text, `state ${WHERE}`);
        } catch (err) {
          if (err instanceof StateError)
            throw new StateError(err.code, `refusing to write the state: ${err.message}`);
          throw err;
        }
      }
      checkCompareAndSet(previous, expected, next, WHERE);
      backing.text = JSON.stringify(next);
    },
    async appendJournal(entries) {
      open();
      for (const entry of entries) backing.journal.push(JSON.stringify(entry) + '\n');
    },
    async readJournal() {
      open();
      return parseJournalText(backing.journal.join(''), `journal ${WHERE}`).entries;
    },
    async clearJournal() {
      open();
      backing.journal = [];
    },
    async lock(info, options) {
      open();
      const mine: LockInfo = { id: randomUUID(), ...info };
      await waitForLock(
        async () => {
          if (backing.lock === null) {
            backing.lock = mine;
            return null;
          }
          return backing.lock;
        },
        WHERE,
        options,
      );
      return { ...mine };
    },
    async unlock(lockId) {
      open();
      if (backing.lock?.id === lockId) backing.lock = null;
    },
    async forceUnlock() {
      open();
      const holder = backing.lock;
      backing.lock = null;
      return holder ? { ...holder } : null;
    },
    async lockHolder() {
      open();
      return backing.lock ? { ...backing.lock } : null;
    },
    async close() {
      closed = true;
    },
  };
  backings.set(store, backing);
  return store;
}

/**
 * State in memory, for tests: the same compare-and-set, lock and journal
 * semantics as the file store, nothing durable. `initial` is stored as is.
 */
export function createMemoryStateStore(initial?: StateDocument): StateStore {
  const text = initial ? JSON.stringify(checkDocumentToWrite(initial, WHERE)) : null;
  return handle({ text, journal: [], lock: null, key: null, names: null });
}

/** Another handle on the same memory storage, like a second process on one file. */
export function openMemoryHandle(store: StateStore): StateStore {
  return handle(backingOf(store));
}

/** Test hook: puts raw text where the document is stored (e.g. a corrupt or future document). */
export function writeRawMemoryState(store: StateStore, text: string | null): void {
  backingOf(store).text = text;
}

/** Test hook: the stored text, to check that a refused write left it unchanged. */
export function readRawMemoryState(store: StateStore): string | null {
  return backingOf(store).text;
}
