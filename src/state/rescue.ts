/**
 * Rescue files: operations the tenant acknowledged but the store could not
 * record (disk full, database down, lock lost). They are written next to the
 * state when that directory is writable, else in the system temp directory
 * (mode 0600), and also printed one per line on stderr, prefixed with
 * RESCUE_LINE_PREFIX, so that a CI log keeps them. The next command that
 * opens the same state finds the files, checks their lineage and replays them
 * together with the journal; `tenantform state rescue FILE` replays one file
 * (or the lines of a log) explicitly.
 */
import { randomBytes } from './random.js';
import { open, readdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { StateError } from './errors.js';
import { joined, wordingOrMessage, type Wording } from '../resources/index.js';
import { readBytes } from './file-io.js';
import { recordProblems } from './integrity.js';
import { checkJournalEntry } from './validate.js';
import type { JournalEntry, StatePlace } from './types.js';

export const RESCUE_FORMAT_VERSION = 1;
/** Starts each machine-readable stderr line; the rest of the line is one journal entry as JSON. */
export const RESCUE_LINE_PREFIX = 'tenantform-rescue: ';
const TEMP_PREFIX = 'tenantform-rescue-';

export interface RescueFile {
  path: string;
  /** A rescue file (removed once replayed) or a log holding rescue lines (left alone). */
  kind: 'file' | 'log';
  /** The store the operations belong to (its description). */
  state: string;
  lineage: string;
  entries: JournalEntry[];
}

interface RescueDocument {
  tenantform_rescue: number;
  state: string;
  lineage: string;
  written_at: string;
  entries: JournalEntry[];
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Creates `path` exclusively (mode 0600) with `text`; a short or failed write removes it. */
async function writeNew(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    const bytes = Buffer.from(text);
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length, 0);
    if (bytesWritten !== bytes.length)
      throw new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw err;
  }
  await handle.close();
}

/** Where a store's rescue files go: beside its file, and the temp directory. */
function candidateDirs(store: StatePlace): { dir: string; prefix: string }[] {
  const places = [];
  if (store.file) places.push({ dir: dirname(store.file), prefix: `${basename(store.file)}.rescue-` });
  places.push({ dir: tmpdir(), prefix: TEMP_PREFIX });
  return places;
}

/**
 * Writes the entries to a new rescue file: beside the state when possible,
 * else in the temp directory. Returns the path, or throws when neither place
 * can take it (the stderr lines are then the only copy).
 */
export async function writeRescueFile(
  store: StatePlace,
  entries: readonly JournalEntry[],
  now: Date = new Date(),
): Promise<string> {
  const doc: RescueDocument = {
    tenantform_rescue: RESCUE_FORMAT_VERSION,
    state: store.description,
    lineage: entries[0]!.lineage,
    written_at: now.toISOString(),
    entries: [...entries],
  };
  const text = JSON.stringify(doc, null, 1) + '\n';
  const name = `${stamp(now)}-${process.pid}-${randomBytes(3).toString('hex')}.json`;
  const failures: (Wording | string)[] = [];
  for (const place of candidateDirs(store)) {
    const path = join(place.dir, place.prefix + name);
    try {
      await writeNew(path, text);
      return path;
    } catch (err) {
      failures.push(joined(`${path}: `, wordingOrMessage(err)));
    }
  }
  const listed = failures.flatMap((failure, i) => (i === 0 ? [failure] : ['; ', failure]));
  throw new StateError('STATE_IO', joined('could not write a rescue file (', ...listed, ')'));
}

/** One stderr line per entry: RESCUE_LINE_PREFIX + the entry as JSON. */
export function rescueLines(entries: readonly JournalEntry[]): string[] {
  return entries.map((e) => RESCUE_LINE_PREFIX + JSON.stringify(e));
}

/**
 * Reads a rescue file, or any text holding rescue lines (a CI log: each line
 * may carry a timestamp or other prefix before RESCUE_LINE_PREFIX). Every
 * entry is checked like a journal entry, and all must share one lineage.
 */
export function parseRescueText(text: string, path: string): RescueFile {
  let entries: JournalEntry[];
  let state = '';
  let kind: RescueFile['kind'] = 'log';
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') && !trimmed.startsWith('{"v"')) {
    let doc: Partial<RescueDocument>;
    try {
      doc = JSON.parse(text) as Partial<RescueDocument>;
    } catch {
      throw new StateError('STATE_CORRUPT', `rescue file ${path} is not valid JSON`);
    }
    if (doc.tenantform_rescue !== RESCUE_FORMAT_VERSION || !Array.isArray(doc.entries)) {
      throw new StateError(
        'STATE_CORRUPT',
        `${path} is not a rescue file of this tenantform (expected tenantform_rescue ${RESCUE_FORMAT_VERSION} and entries)`,
      );
    }
    state = typeof doc.state === 'string' ? doc.state : '';
    kind = 'file';
    entries = doc.entries.map((e, i) => checkJournalEntry(e, `rescue file ${path} entry ${i + 1}`));
  } else {
    entries = [];
    text.split('\n').forEach((line, i) => {
      const at = line.indexOf(RESCUE_LINE_PREFIX);
      if (at < 0) return;
      const json = line.slice(at + RESCUE_LINE_PREFIX.length).trim();
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch {
        throw new StateError('STATE_CORRUPT', `${path} line ${i + 1}: the rescue line is not valid JSON`);
      }
      entries.push(checkJournalEntry(value, `${path} line ${i + 1}`));
    });
  }
  if (entries.length === 0) {
    throw new StateError(
      'STATE_CORRUPT',
      `${path} holds no rescue entries (neither a rescue file nor lines starting with "${RESCUE_LINE_PREFIX.trim()}")`,
    );
  }
  refuseBadRecords(entries, path);
  const lineage = entries[0]!.lineage;
  const other = entries.find((e) => e.lineage !== lineage);
  if (other) {
    throw new StateError(
      'STATE_CORRUPT',
      `${path} mixes entries of lineages ${lineage} and ${other.lineage}; split it by state first`,
    );
  }
  return { path, kind, state, lineage, entries };
}

/**
 * Refuses rescue entries whose records the state could not act on (see
 * integrity.ts): recorded, they would make plan propose changes to the wrong
 * resource, such as a delete of a real id.
 */
function refuseBadRecords(entries: readonly JournalEntry[], path: string): void {
  const bad: string[] = [];
  entries.forEach((entry, i) => {
    if (entry.op !== 'put') return;
    for (const problem of recordProblems(entry.resource))
      bad.push(`  entry ${i + 1} (${entry.resource.address}): ${problem}`);
  });
  if (bad.length === 0) return;
  throw new StateError(
    'STATE_CORRUPT',
    `${path} holds rescue entries tenantform cannot record, so none of it was recorded:\n${bad.join('\n')}\n` +
      'Rescue entries are written by tenantform as the tenant answered; fix or delete these lines only if you know what the tenant holds.',
  );
}

/** Reads one rescue file or log; throws StateError naming it when it is missing or unreadable. */
export async function readRescueFile(path: string): Promise<RescueFile> {
  const bytes = await readBytes(path);
  if (bytes === null) throw new StateError('STATE_IO', `rescue file ${path} does not exist`);
  return parseRescueText(bytes.toString('utf8'), path);
}

/**
 * The rescue files this store left: those beside its file (any), and those
 * in the temp directory that name this store. Unreadable candidates are
 * reported in `problems` (a setting they name kept as data) and left alone.
 */
export async function findRescueFiles(
  store: StatePlace,
): Promise<{ files: RescueFile[]; problems: (Wording | string)[] }> {
  const files: RescueFile[] = [];
  const problems: (Wording | string)[] = [];
  for (const place of candidateDirs(store)) {
    let names: string[];
    try {
      names = await readdir(place.dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.startsWith(place.prefix) || !name.endsWith('.json')) continue;
      const path = join(place.dir, name);
      try {
        const temp = place.prefix === TEMP_PREFIX;
        const bytes = await readBytes(path);
        if (bytes === null) continue;
        const text = bytes.toString('utf8');
        // The temp directory holds other states' rescue files too: one that never
        // names this store is passed over without being parsed and checked.
        if (temp && !text.includes(JSON.stringify(store.description))) continue;
        const file = parseRescueText(text, path);
        if (temp && file.state !== store.description) continue;
        files.push(file);
      } catch (err) {
        if (place.prefix !== TEMP_PREFIX) problems.push(wordingOrMessage(err));
      }
    }
  }
  return { files, problems };
}

/** Removes a replayed rescue file; a file already gone is fine. */
export async function removeRescueFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new StateError(
        'STATE_IO',
        `could not remove the replayed rescue file ${path}: ${(err as Error).message}; delete it by hand`,
      );
    }
  }
}

/**
 * Which rescue files belong to a state of `lineage` (null: nothing stored and
 * no journal, so the first file's lineage is taken). The others are skipped
 * with a reason and left where they are.
 */
export function selectRescueFiles(
  files: readonly RescueFile[],
  lineage: string | null,
): { accepted: RescueFile[]; skipped: { file: RescueFile; reason: string }[] } {
  const want = lineage ?? files[0]?.lineage ?? null;
  const accepted: RescueFile[] = [];
  const skipped: { file: RescueFile; reason: string }[] = [];
  for (const file of files) {
    if (file.lineage === want) accepted.push(file);
    else
      skipped.push({
        file,
        reason: `its lineage ${file.lineage} is not the state's (${String(want)}): it belongs to another state`,
      });
  }
  return { accepted, skipped };
}
