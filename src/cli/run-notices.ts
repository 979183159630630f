/**
 * The state notices of a run (src/run/locked-state.ts, known-names.ts) as
 * the lines written on stderr: a lock taken over, rescue files replayed,
 * kept or skipped, names not read or not kept.
 */
import type { RunNotice } from '../run/index.js';
import type { Wording } from '../resources/settings.js';
import type { LockInfo, RescueOutcome, TakeoverReason } from '../state/index.js';

/**
 * What a run says when it took over the lock of a holder that can no longer
 * write: on a file state its process is gone; on pg only its database
 * session is known to have ended, and the process may still run.
 */
function takeoverNote(stale: LockInfo, replayed: number, how: TakeoverReason): string {
  const journal =
    replayed === 0
      ? 'its journal had nothing to replay'
      : `replayed the ${replayed} operation${replayed === 1 ? '' : 's'} its journal recorded`;
  const why =
    how === 'process-gone'
      ? 'that process is no longer running'
      : 'its database session ended (terminated, disconnected or force-unlocked); the process may still be ' +
        'running, but it can write nothing more to this state, and what it has in flight goes to its rescue ' +
        'file, which the next command replays';
  return `Took over the state lock of ${stale.command} (pid ${stale.pid} on host ${stale.host}, since ${stale.since}): ${why}; ${journal}.\n`;
}

/** The rescue files replayed (into a read or the state), kept and skipped. */
function rescuedText(rescued: RescueOutcome, into: 'read' | 'state'): string {
  const replayed = into === 'read' ? 'included (the next apply records them)' : 'recorded into the state';
  let text = '';
  for (const file of rescued.replayed) {
    text += `Rescue file ${file.path}: ${file.entries.length} acknowledged operation(s) ${replayed}.\n`;
  }
  for (const { file, record } of rescued.kept) {
    text +=
      `Rescue file ${file.path}: kept the recorded id ${record.id} of ${record.address}; the file has it adopted ` +
      'without an id (its create was answered 409: by then another apply had made it and recorded its id).\n';
  }
  for (const { file, reason } of rescued.skipped) {
    text += `Warning: rescue file ${file.path} was not replayed: ${reason}; it was left as it is.\n`;
  }
  return text;
}

/**
 * A state notice's text, a setting named by `words` and an error by
 * `message`; null for the other notices (run-words.ts words those).
 */
export function stateNoticeText(
  notice: RunNotice,
  words: (wording: Wording) => string,
  message: (err: unknown) => string,
): string | null {
  switch (notice.kind) {
    case 'lock-takeover':
      return takeoverNote(notice.holder, notice.replayed, notice.how);
    case 'rescue-unreadable':
      return `Warning: ${typeof notice.problem === 'string' ? notice.problem : words(notice.problem)}; it was left as it is.\n`;
    case 'rescued':
      return rescuedText(notice.rescued, notice.into);
    case 'names-unread':
      return `Note: the names kept with the state were not read (${message(notice.error)}); ids are shown alone.\n`;
    case 'names-unkept':
      return `Note: the names read from the tenant were not kept with the state (${message(notice.error)}).\n`;
    default:
      return null;
  }
}
