/**
 * State: what tenantform last recorded on the tenant, and how it is kept safe.
 * Owns the StateStore interface (small ones combined: reader, writer,
 * journal, locker, plan key; each caller takes the part it uses) and its
 * file and memory backends (atomic writes, backup, journal with group
 * commit, lock), the document format and
 * its validation, and the session flow commands use (lock, replay, record,
 * commit). Does not own: deciding changes (plan/), calling the API (apply/,
 * api/), or where the state file lives by default (cli/).
 *
 * The shared backend test lives in test/helpers/state-contract.ts (test
 * code): runStateStoreContract(name, makeStore, options).
 */
export type {
  JournalEntry,
  LockInfo,
  LockOptions,
  StateDocument,
  StateLocation,
  StateTenant,
  TakeoverReason,
  StateStore,
  StatePlace,
  StateReader,
  StateWriter,
  JournalReader,
  StateJournal,
  StateLocker,
  PlanKeyKeeper,
  SnapshotSource,
  SessionStore,
  NameKeeper,
  RateLimitKeeper,
} from './types.js';
export { describeStateLocation, JOURNAL_FORMAT_VERSION, STATE_FORMAT_VERSION } from './types.js';
export { LockError, StateError, type StateErrorCode } from './errors.js';
export {
  applyJournal,
  checkCompareAndSet,
  compareAddresses,
  emptyState,
  indexByAddress,
  newLineage,
  sortResources,
} from './document.js';
export { checkStateDocument, parseJournalText, parseStateText } from './validate.js';
export { createFileStateStore, type FileStateStoreOptions } from './file-store.js';
export { holderStatus } from './lock-holder.js';
export { realFilePath, type SyncFn, type SyncTarget } from './file-io.js';
export {
  createMemoryStateStore,
  openMemoryHandle,
  readRawMemoryState,
  writeRawMemoryState,
} from './memory-store.js';
export {
  findRescueFiles,
  readRescueFile,
  removeRescueFile,
  rescueLines,
  writeRescueFile,
  RESCUE_LINE_PREFIX,
  type RescueFile,
} from './rescue.js';
export {
  openState,
  readStateSnapshot,
  readStateSnapshotWithRescue,
  toJournalEntry,
  type RescueOutcome,
  type OpenStateOptions,
  type RecordEntry,
  type StateSession,
} from './session.js';
