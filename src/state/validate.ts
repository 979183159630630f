import { formatAddress, isKindName, kindOf, type RecordedResource } from '../resources/index.js';
import { checkSchema, jsonSyntaxProblem, type SchemaIssue } from '../schemas/index.js';
import { sortResources } from './document.js';
import { StateError } from './errors.js';
import {
  JOURNAL_FORMAT_VERSION,
  READABLE_STATE_VERSIONS,
  STATE_FORMAT_VERSION,
  type JournalEntry,
  type StateDocument,
} from './types.js';

const UNTOUCHED = 'It was left untouched.';

function pathText(path: (string | number)[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}

function issuesText(issues: readonly SchemaIssue[]): string[] {
  return issues.map((i) => (i.path.length > 0 ? `${pathText(i.path)}: ${i.message}` : i.message));
}

/**
 * Issues of a document beyond the schema: addresses must match kind and
 * identity, and be unique. `sorted` is its resources sorted by address, where
 * an address recorded twice sits beside itself: the set of every address that
 * names which is made only then (for 100,000 records, megabytes that would
 * outlive the young generation).
 */
function semanticIssues(doc: StateDocument, sorted: readonly RecordedResource[]): string[] {
  const out: string[] = [];
  const twice = sorted.some((r, i) => i > 0 && r.address === sorted[i - 1]!.address);
  const seen = twice ? new Set<string>() : null;
  doc.resources.forEach((r, i) => {
    const expected = formatAddress(r.kind, r.identity);
    if (r.address !== expected)
      out.push(`resources[${i}].address is ${r.address} but kind and identity say ${expected}`);
    if (!seen) return;
    if (seen.has(r.address)) out.push(`resources[${i}].address ${r.address} appears twice`);
    seen.add(r.address);
  });
  return out;
}

function versionOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/**
 * What is wrong with a value as a state document of the supported version
 * (empty when nothing is), and its resources sorted by address (empty when
 * its shape is wrong).
 */
function checkDocument(value: unknown): { problems: string[]; sorted: RecordedResource[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return {
      problems: [
        `the document must be a JSON object with format_version, lineage, serial and resources (got ${got})`,
      ],
      sorted: [],
    };
  }
  const issues = checkSchema('state', value);
  if (issues.length > 0) return { problems: issuesText(issues), sorted: [] };
  const doc = value as StateDocument;
  const sorted = sortResources(doc.resources);
  return { problems: semanticIssues(doc, sorted), sorted };
}

function unknownVersion(value: unknown, readable: readonly number[]): number | null {
  const version = versionOf(value, 'format_version');
  return typeof version === 'number' && !readable.includes(version) ? version : null;
}

const listed = (problems: string[]): string =>
  problems.slice(0, 3).join('; ') + (problems.length > 3 ? ` (and ${problems.length - 3} more)` : '');

/** Makes a record's strings shared: see recordStringSharer. */
export type ShareRecordStrings = (value: unknown) => void;

/**
 * Points each record's kind at the kind's own name, and its identity parts
 * and the attributes they come from at one string per value for all the
 * records it is given: JSON.parse makes every string anew, so a state of
 * 100,000 records would otherwise hold the identity twice per record, and a
 * value many records share (an API identifier, a user) once per record.
 * Takes any value, since the file store calls it on each record as soon as
 * it is parsed, before the document is checked (file-read.ts): the copies
 * then die young instead of outliving the young generation. Whatever is not
 * such a record is left as it is; values stay equal, only shared.
 */
export function recordStringSharer(): ShareRecordStrings {
  const kept = new Map<string, string>();
  const keep = (value: string): string => {
    const first = kept.get(value);
    if (first !== undefined) return first;
    kept.set(value, value);
    return value;
  };
  return (value) => {
    if (typeof value !== 'object' || value === null) return;
    const record = value as { kind?: unknown; identity?: unknown; attributes?: unknown };
    if (typeof record.kind !== 'string' || !isKindName(record.kind)) return;
    const kind = kindOf(record.kind);
    record.kind = kind.name;
    const { identity } = record;
    const attributes = record.attributes as Record<string, unknown> | null | undefined;
    if (!Array.isArray(identity) || typeof attributes !== 'object' || attributes === null) return;
    kind.identityFields.forEach((field, i) => {
      const part = attributes[field];
      if (typeof part !== 'string' || !Object.prototype.hasOwnProperty.call(attributes, field)) return;
      const shared = keep(part);
      attributes[field] = shared;
      if (shared === identity[i]) identity[i] = shared;
    });
  };
}

/**
 * Checks a stored value as a state document and returns it with resources
 * sorted. Throws STATE_UNKNOWN_VERSION for another format_version and
 * STATE_CORRUPT for anything else wrong, naming `where`; `hint` says how to
 * recover. `stringsShared`: a recordStringSharer has seen every record
 * already (the file store's reader does, as it parses).
 */
export function checkStateDocument(
  value: unknown,
  where: string,
  hint = '',
  stringsShared = false,
): StateDocument {
  const version = unknownVersion(value, READABLE_STATE_VERSIONS);
  if (version !== null) {
    throw new StateError(
      'STATE_UNKNOWN_VERSION',
      `${where} has state format_version ${version}, but this tenantform reads format_version ${READABLE_STATE_VERSIONS.join(' and ')} only. ` +
        `${UNTOUCHED} Use the tenantform release that wrote it.`,
    );
  }
  const { problems, sorted } = checkDocument(value);
  if (problems.length > 0) {
    throw new StateError(
      'STATE_CORRUPT',
      `${where} is not a valid state document: ${listed(problems)}. ${UNTOUCHED}${hint}`,
    );
  }
  // An older version is read as the current one: format 1 only lacked `tenant`.
  const doc = value as StateDocument;
  if (!stringsShared) sorted.forEach(recordStringSharer());
  return { ...doc, format_version: STATE_FORMAT_VERSION, resources: sorted };
}

/** Parses stored state text (see checkStateDocument). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a state file's bytes, refusing invalid UTF-8: a lossy decode would
 * turn one flipped byte of an id into U+FFFD and silently change the record.
 */
export function decodeStateBytes(bytes: Uint8Array, where: string, hint = ''): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new StateError('STATE_CORRUPT', `${where} is not valid UTF-8. ${UNTOUCHED}${hint}`);
  }
}

/**
 * Decodes a journal's bytes. Every complete line must be valid UTF-8; only
 * the torn last line of a crashed append may not be (it is ignored anyway).
 */
export function decodeJournalBytes(bytes: Uint8Array, where: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    const end = bytes.lastIndexOf(0x0a) + 1;
    const complete = decodeStateBytes(bytes.subarray(0, end), where);
    return complete + new TextDecoder('utf-8').decode(bytes.subarray(end));
  }
}

export function parseStateText(text: string, where: string, hint = ''): StateDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = jsonSyntaxProblem(text, err);
    throw new StateError('STATE_CORRUPT', `${where} is not valid JSON (${detail}). ${UNTOUCHED}${hint}`);
  }
  return checkStateDocument(value, where, hint);
}

/**
 * Checks a document a caller asks to store and returns it with resources
 * sorted. A failure is a bug in the caller: STATE_INVALID, or
 * STATE_UNKNOWN_VERSION for a format_version this build does not write.
 */
export function checkDocumentToWrite(doc: StateDocument, where: string): StateDocument {
  const version = unknownVersion(doc, [STATE_FORMAT_VERSION]);
  if (version !== null) {
    throw new StateError(
      'STATE_UNKNOWN_VERSION',
      `refusing to write format_version ${version} to ${where}; this tenantform writes format_version ${STATE_FORMAT_VERSION}`,
    );
  }
  const { problems, sorted } = checkDocument(doc);
  if (problems.length > 0) {
    throw new StateError(
      'STATE_INVALID',
      `refusing to write an invalid state document to ${where}: ${listed(problems)}`,
    );
  }
  return { ...doc, resources: sorted };
}

const ENTRY_KEYS = {
  put: ['v', 'lineage', 'op', 'resource'],
  remove: ['v', 'lineage', 'op', 'address'],
} as const;

/** Checks one parsed journal line; returns a problem description, or the entry. */
export function checkJournalEntry(value: unknown, where: string): JournalEntry {
  const version = versionOf(value, 'v');
  if (typeof version === 'number' && version !== JOURNAL_FORMAT_VERSION) {
    throw new StateError(
      'STATE_UNKNOWN_VERSION',
      `${where} has journal version ${version}, but this tenantform reads version ${JOURNAL_FORMAT_VERSION} only. ${UNTOUCHED}`,
    );
  }
  const corrupt = (what: string) =>
    new StateError('STATE_CORRUPT', `${where} is not a valid journal entry: ${what}. ${UNTOUCHED}`);
  if (version === undefined || value === null || typeof value !== 'object')
    throw corrupt('expected an object with v, lineage and op');
  const entry = value as Record<string, unknown>;
  if (typeof entry.lineage !== 'string' || entry.lineage === '')
    throw corrupt('lineage must be a non-empty string');
  if (entry.op !== 'put' && entry.op !== 'remove') throw corrupt('op must be put or remove');
  const extra = Object.keys(entry).filter(
    (k) => !(ENTRY_KEYS[entry.op as 'put' | 'remove'] as readonly string[]).includes(k),
  );
  if (extra.length > 0) throw corrupt(`unknown property "${extra[0]}"`);
  if (entry.op === 'remove') {
    if (typeof entry.address !== 'string' || entry.address === '')
      throw corrupt('address must be a non-empty string');
    return entry as JournalEntry;
  }
  const wrapper = {
    format_version: STATE_FORMAT_VERSION,
    lineage: entry.lineage,
    serial: 0,
    resources: [entry.resource],
  };
  const { problems } = checkDocument(wrapper);
  if (problems.length > 0) throw corrupt(listed(problems).replace(/resources\[0\]/g, 'resource'));
  return entry as JournalEntry;
}

/** Checks an entry before it is appended, so that a bad entry never reaches the journal (STATE_INVALID). */
export function checkEntryToRecord(entry: JournalEntry): void {
  try {
    checkJournalEntry(entry, 'the entry to record');
  } catch (err) {
    if (err instanceof StateError) {
      throw new StateError('STATE_INVALID', err.message.replace(UNTOUCHED, 'Nothing was recorded.'));
    }
    throw err;
  }
}

export interface ParsedJournal {
  entries: JournalEntry[];
  /** Bytes of the text that hold complete, valid entries (where a torn tail starts). */
  validBytes: number;
  /** True when the last line was torn (incomplete or unparseable) and ignored. */
  torn: boolean;
}

/**
 * Parses JSON-lines journal text. A last line that is incomplete (no newline)
 * or not JSON is a torn write from a crash: ignored, never acknowledged. A bad
 * line followed by others is corruption: STATE_CORRUPT naming the line.
 */
export function parseJournalText(text: string, where: string): ParsedJournal {
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  let lastContent = lines.length - 1;
  while (lastContent > 0 && lines[lastContent]!.trim() === '') lastContent--;
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const last = i === lines.length - 1;
    const complete = !last; // a line counts only with its newline
    if (line.trim() === '') {
      if (complete) offset += Buffer.byteLength(line) + 1;
      continue;
    }
    let value: unknown;
    try {
      if (!complete) throw new Error('incomplete line');
      value = JSON.parse(line);
    } catch {
      if (i === lastContent) return { entries, validBytes: offset, torn: true };
      throw new StateError(
        'STATE_CORRUPT',
        `${where} line ${i + 1} is not valid JSON, and later lines follow it, so it is not a torn final write. ${UNTOUCHED}`,
      );
    }
    entries.push(checkJournalEntry(value, `${where} line ${i + 1}`));
    offset += Buffer.byteLength(line) + 1;
  }
  return { entries, validBytes: offset, torn: false };
}
