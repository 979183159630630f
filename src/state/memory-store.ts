import { knownNamesDocument, parseKnownNames, type KnownNames } from '../resources/index.js';
import { randomBytes, randomUUID } from './random.js';
import { checkCompareAndSet } from './document.js';
import { StateError } from './errors.js';
import { waitForLock } from './lock-wait.js';
import { checkDocumentToWrite, parseJournalText, parseStateText } from './validate.js';
import type { JournalEntry, LockInfo, LockOptions, StateDocument, StateStore } from './types.js';

/** What several handles of one memory store share: the document as text, the journal lines, the lock, the plan key. */
interface Backing {
  text: string | null;
  journal: string[];
  lock: LockInfo | null;
  key: Buffer | null;
  names: string | null;
  rateLimits: string | null;
}

const WHERE = 'in memory';

/** One handle on a memory backing; several handles share one backing like processes share a file. */
class MemoryStore implements StateStore {
  readonly description = 'memory';
  readonly planKeyWhere = 'memory';
  private closed = false;

  constructor(readonly backing: Backing) {}

  private open(): void {
    if (this.closed) throw new StateError('STATE_IO', 'memory state store was closed');
  }

  async planKey({ create }: { create: boolean }): Promise<Buffer | null> {
    this.open();
    if (create) this.backing.key ??= randomBytes(32);
    return this.backing.key;
  }

  async readNames(): Promise<KnownNames | null> {
    this.open();
    return this.backing.names === null ? null : parseKnownNames(JSON.parse(this.backing.names));
  }

  async writeNames(known: KnownNames): Promise<void> {
    this.open();
    this.backing.names = JSON.stringify(knownNamesDocument(known));
  }

  async readRateLimits(): Promise<string | null> {
    this.open();
    return this.backing.rateLimits;
  }

  async writeRateLimits(text: string): Promise<void> {
    this.open();
    this.backing.rateLimits = text;
  }

  async read(): Promise<StateDocument | null> {
    this.open();
    return this.backing.text === null ? null : parseStateText(this.backing.text, `state ${WHERE}`);
  }

  async write(doc: StateDocument, expected?: { lineage: string; serial: number } | null): Promise<void> {
    this.open();
    const next = checkDocumentToWrite(doc, WHERE);
    checkCompareAndSet(this.storedToReplace(), expected, next, WHERE);
    this.backing.text = JSON.stringify(next);
  }

  /** The stored document a write replaces; a corrupt one is never overwritten. */
  private storedToReplace(): StateDocument | null {
    if (this.backing.text === null) return null;
    try {
      return parseStateText(this.backing.text, `state ${WHERE}`);
    } catch (err) {
      if (err instanceof StateError)
        throw new StateError(err.code, `refusing to write the state: ${err.message}`);
      throw err;
    }
  }

  async appendJournal(entries: readonly JournalEntry[]): Promise<void> {
    this.open();
    for (const entry of entries) this.backing.journal.push(JSON.stringify(entry) + '\n');
  }

  async readJournal(): Promise<JournalEntry[]> {
    this.open();
    return parseJournalText(this.backing.journal.join(''), `journal ${WHERE}`).entries;
  }

  async clearJournal(): Promise<void> {
    this.open();
    this.backing.journal = [];
  }

  async lock(info: Omit<LockInfo, 'id'>, options?: LockOptions): Promise<LockInfo> {
    this.open();
    const mine: LockInfo = { id: randomUUID(), ...info };
    const backing = this.backing;
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
  }

  async unlock(lockId: string): Promise<void> {
    this.open();
    if (this.backing.lock?.id === lockId) this.backing.lock = null;
  }

  async forceUnlock(): Promise<LockInfo | null> {
    this.open();
    const holder = this.backing.lock;
    this.backing.lock = null;
    return holder ? { ...holder } : null;
  }

  async lockHolder(): Promise<LockInfo | null> {
    this.open();
    return this.backing.lock ? { ...this.backing.lock } : null;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function backingOf(store: StateStore): Backing {
  if (!(store instanceof MemoryStore)) throw new Error('not a memory state store');
  return store.backing;
}

/**
 * State in memory, for tests: the same compare-and-set, lock and journal
 * semantics as the file store, nothing durable. `initial` is stored as is.
 */
export function createMemoryStateStore(initial?: StateDocument): StateStore {
  const text = initial ? JSON.stringify(checkDocumentToWrite(initial, WHERE)) : null;
  return new MemoryStore({ text, journal: [], lock: null, key: null, names: null, rateLimits: null });
}

/** Another handle on the same memory storage, like a second process on one file. */
export function openMemoryHandle(store: StateStore): StateStore {
  return new MemoryStore(backingOf(store));
}

/** Test hook: puts raw text where the document is stored (e.g. a corrupt or future document). */
export function writeRawMemoryState(store: StateStore, text: string | null): void {
  backingOf(store).text = text;
}

/** Test hook: the stored text, to check that a refused write left it unchanged. */
export function readRawMemoryState(store: StateStore): string | null {
  return backingOf(store).text;
}
