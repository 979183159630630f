/**
 * What apply prints once the executor is done: the rescue of acknowledged
 * but unrecorded operations, and the summary (always, before any error from
 * saving the state or releasing the lock). Exit code: 0 complete, 1 anything
 * failed, not attempted or not recorded, 130 interrupted, 141 stopped by a
 * closed output.
 */
import type { ApplyResult } from '../apply/index.js';
import { isIncomplete } from '../run/index.js';
import { stopExitCode, stopRequested, type CommandIO } from './io.js';
import { withoutHint } from './progress.js';
import { plural } from './words.js';

/** Where the unrecorded operations went: a rescue file, or only the stderr lines. */
export interface RescueNote {
  path: string | null;
  /** Why no file could be written. */
  problem?: string;
}

/** A replace whose create answered 409 sent its delete too: counted apart from plain adoptions. */
const REPLACED_ADOPTED = 'deleted, then adopted';

function summarize(result: ApplyResult): string {
  const counts = new Map<string, number>();
  const key = (d: ApplyResult['done'][number]) =>
    d.outcome === 'adopted' && d.action === 'replace' ? REPLACED_ADOPTED : d.outcome;
  for (const d of result.done) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  const parts = [...counts].map(([outcome, n]) => {
    if (outcome === 'already-gone') return `${n} already gone`;
    if (outcome === 'adopted' || outcome === REPLACED_ADOPTED) {
      const mine = result.done.filter((d) => key(d) === outcome);
      const why = outcome === REPLACED_ADOPTED ? 'the create after the delete answered 409' : '';
      const unverified = mine.every((d) => !d.adoption) ? 'settings NOT verified' : '';
      const notes = [why, unverified].filter(Boolean).join('; ');
      return `${n} ${outcome}${notes ? ` (${notes})` : ''}`;
    }
    return `${n} ${outcome}`;
  });
  if (result.unrecorded.length > 0) parts.push(`${result.unrecorded.length} done but not recorded`);
  return parts.length > 0 ? parts.join(', ') : 'no change was made';
}

/**
 * After 409 adoptions that were looked up on the tenant (API profile full):
 * their ids, and which ones hold other settings than the config (the next
 * plan changes them).
 */
function adoptionNote(result: ApplyResult, io: CommandIO): void {
  const found = result.done.filter((d) => d.outcome === 'adopted' && d.adoption);
  if (found.length === 0) return;
  const differ = found.filter((d) => d.adoption!.differs.length > 0);
  const lines = found.slice(0, 20).map((d) => {
    const a = d.adoption!;
    const id = a.id ? ` (id ${a.id})` : '';
    const note =
      a.differs.length > 0
        ? `: the tenant's ${a.differs.join(', ')} differ from the config`
        : ': matches the config';
    return `  ${d.address}${id}${note}\n`;
  });
  if (found.length > 20) lines.push(`  … and ${found.length - 20} more\n`);
  io.stdout.write(
    `\n${plural(found.length, 'resource was', 'resources were')} already on the tenant (409) and adopted with ` +
      `${found.length === 1 ? 'its id and live settings' : 'their ids and live settings'}, read from the tenant:\n` +
      lines.join('') +
      (differ.length > 0
        ? `The recorded settings are the live ones: run plan to see the ${plural(differ.length, 'change')} that make${differ.length === 1 ? 's' : ''} ${differ.length === 1 ? 'it' : 'them'} match the config.\n`
        : ''),
  );
}

/** The loud note after 409 adoptions: the tenant may hold other settings than the config. */
function adoptionWarning(result: ApplyResult, io: CommandIO): void {
  adoptionNote(result, io);
  const adopted = result.done.filter((d) => d.outcome === 'adopted' && !d.adoption);
  if (adopted.length === 0) return;
  const lines = adopted.slice(0, 20).map((d) => `  ${d.address}\n`);
  if (adopted.length > 20) lines.push(`  … and ${adopted.length - 20} more\n`);
  io.stdout.write(
    `\nWARNING: ${plural(adopted.length, 'resource was', 'resources were')} already on the tenant (409) and ` +
      'adopted WITHOUT checking their settings: the API cannot read them back, so the tenant may hold ' +
      'different settings than your config:\n' +
      lines.join('') +
      'They are recorded without an id. To manage them fully, find their ids on the tenant and run ' +
      'tenantform import; `tenantform state list` flags every adopted resource.\n',
  );
}

/**
 * The exit code of an apply, with or without --json: 0 complete, 130 or 141
 * when a signal or a closed output stopped it, 1 anything else incomplete.
 */
export function applyExitCode(result: ApplyResult, interrupted: boolean, io: CommandIO): number {
  if (!isIncomplete(result, interrupted)) return 0;
  const stop = interrupted ? stopRequested(io.signal) : null;
  return stop ? stopExitCode(stop) : 1;
}

/** Why the apply stopped early, in words, for the line after the summary. */
function stoppedLine(io: CommandIO): string {
  const stop = stopRequested(io.signal);
  const what =
    stop?.kind === 'output'
      ? `Stopped: ${stop.message} (its reader went away): no new request was sent after that`
      : 'Interrupted: no new request was sent after the signal';
  return `${what}; requests in flight finished and were recorded.\n`;
}

/**
 * What the summary says about operations acknowledged but not recorded: where
 * they went (a rescue file, or only the stderr lines) and what replays them.
 */
function unrecordedLines(result: ApplyResult, rescue: RescueNote | null): string {
  const where = rescue?.path
    ? `saved in ${rescue.path} (mode 0600) and printed above as "tenantform-rescue:" lines`
    : `printed above as "tenantform-rescue:" lines only (no rescue file could be written: ${rescue?.problem ?? 'unknown'}); save those lines to a file`;
  return (
    `${plural(result.unrecorded.length, 'operation was', 'operations were')} acknowledged by the tenant but not ` +
    `recorded in the state: ${where}. The next plan or apply on this state replays ` +
    `${rescue?.path ? 'that file' : 'nothing by itself'}; \`tenantform state rescue FILE\` records it explicitly.\n`
  );
}

/** The last line: how to continue, true to what was written. */
function continueLine(result: ApplyResult, rescue: RescueNote | null): string {
  if (result.unrecorded.length === 0) {
    return 'State records everything that was done; run apply again to continue.\n';
  }
  if (rescue?.path) return 'Run apply again to continue; it replays the rescue file first.\n';
  return (
    'Before running apply again, save the "tenantform-rescue:" lines above to a file and record them with ' +
    '`tenantform state rescue FILE`; otherwise the next apply re-creates those resources and adopts them (409) without their ids.\n'
  );
}

/** "3 requests answered 429 (rate limited) and were retried." or null when none was. */
export function rateLimitLine(answered: number, retried: number): string | null {
  if (answered === 0) return null;
  const requests = plural(answered, 'request');
  if (retried === answered) {
    return `${requests} answered 429 (rate limited) and ${answered === 1 ? 'was' : 'were'} retried.`;
  }
  return `${requests} answered 429 (rate limited); ${retried} ${retried === 1 ? 'was' : 'were'} retried.`;
}

/**
 * Prints the summary and returns the exit code. Each distinct failure
 * reason is printed once with its addresses (the first 5 without a live
 * line, where each failure was already printed as it happened), then each
 * hint once.
 */
export function reportApply(
  result: ApplyResult,
  options: {
    rescue: RescueNote | null;
    interrupted: boolean;
    /** Every failure was printed as it happened: the summary names only the first few per reason. */
    failuresListed: boolean;
    /** The API client's 429 answers, and how many of them were retried. */
    status429?: number;
    retried429?: number;
  },
  io: CommandIO,
): number {
  const incomplete = isIncomplete(result, options.interrupted);
  io.stdout.write(`\nApply ${incomplete ? 'incomplete' : 'complete'}: ${summarize(result)}.\n`);
  const limited = rateLimitLine(options.status429 ?? 0, options.retried429 ?? 0);
  if (limited) io.stdout.write(`${limited}\n`);
  if (result.skipped.length > 0) io.stdout.write(`${result.skipped.length} blocked change(s) skipped.\n`);
  adoptionWarning(result, io);
  if (!incomplete) return 0;

  const err = io.stderr;
  err.write(
    `\n${result.done.length} done, ${result.failed.length} failed, ${result.notAttempted.length} not attempted` +
      (result.unrecorded.length > 0 ? `, ${result.unrecorded.length} done but not recorded` : '') +
      '.\n',
  );
  if (result.failed.length > 0) reportFailures(result, options.failuresListed, io);
  if (result.stoppedBy?.cause === 'record') {
    err.write(
      `Stopped at the first failure to record, so that nothing more is sent that could not be recorded: ${result.stoppedBy.message}\n`,
    );
  }
  if (result.unrecorded.length > 0) err.write(unrecordedLines(result, options.rescue));
  if (options.interrupted) err.write(stoppedLine(io));
  if (result.notAttempted.length > 0 || options.interrupted || result.unrecorded.length > 0) {
    err.write(continueLine(result, options.rescue));
  }
  return applyExitCode(result, options.interrupted, io);
}

/** Each distinct failure reason once with its addresses, then each hint once. */
function reportFailures(result: ApplyResult, failuresListed: boolean, io: CommandIO): void {
  const err = io.stderr;
  // Each distinct reason once (creates refused for one cause share it), then each hint once.
  const byReason = new Map<string, string[]>();
  for (const f of result.failed) {
    const reason = withoutHint(f.message, f.hint);
    byReason.set(reason, [...(byReason.get(reason) ?? []), f.address]);
  }
  for (const [reason, addresses] of byReason) {
    err.write(`  failed${addresses.length > 1 ? ` (${addresses.length})` : ''}: ${reason}\n`);
    const shown = failuresListed ? 5 : 10;
    for (const address of addresses.slice(0, shown)) err.write(`    ${address}\n`);
    if (addresses.length > shown) err.write(`    … and ${addresses.length - shown} more\n`);
  }
  for (const hint of new Set(result.failed.flatMap((f) => (f.hint ? [f.hint] : [])))) {
    err.write(`Hint: ${hint}\n`);
  }
}
