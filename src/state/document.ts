import { randomUUID } from './random.js';
import type { RecordedResource } from '../resources/index.js';
import { StateError } from './errors.js';
import { STATE_FORMAT_VERSION, type JournalEntry, type StateDocument } from './types.js';

/** A state with no resources, never written yet (serial 0). */
export function emptyState(lineage: string): StateDocument {
  return { format_version: STATE_FORMAT_VERSION, lineage, serial: 0, resources: [] };
}

/** A fresh random lineage for a new state. */
export function newLineage(): string {
  return randomUUID();
}

/** Orders addresses by code unit, independent of locale. */
export function compareAddresses(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The resources sorted by address (a new array; the input is not changed). */
export function sortResources(resources: Iterable<RecordedResource>): RecordedResource[] {
  return [...resources].sort((x, y) => compareAddresses(x.address, y.address));
}

/**
 * A deep copy of JSON data (what a recorded resource is made of). Several
 * times cheaper than structuredClone for the small objects recorded once per
 * acknowledged operation; a "__proto__" key is copied as a key, as JSON.parse makes it.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out as T;
}

/** Resources keyed by address. */
export function indexByAddress(doc: StateDocument): Map<string, RecordedResource> {
  return new Map(doc.resources.map((r) => [r.address, r]));
}

/** Applies one journal entry to an index (put replaces, remove of a missing address is a no-op). */
export function applyEntry(index: Map<string, RecordedResource>, entry: JournalEntry): void {
  if (entry.op === 'put') index.set(entry.resource.address, entry.resource);
  else index.delete(entry.address);
}

/**
 * Replays journal entries over a document and returns the result, resources
 * sorted by address; lineage and serial are unchanged (the writer bumps the
 * serial). Replaying the same entries twice gives the same result. An entry of
 * another lineage means the journal belongs to another state: refused with
 * STATE_CORRUPT rather than mixed in.
 */
export function applyJournal(
  doc: StateDocument,
  entries: readonly JournalEntry[],
  where = 'the journal',
): StateDocument {
  const index = indexByAddress(doc);
  entries.forEach((entry, i) => {
    if (entry.lineage !== doc.lineage) {
      throw new StateError(
        'STATE_CORRUPT',
        `${where} holds entry ${i + 1} of lineage ${entry.lineage}, but the state has lineage ${doc.lineage}: ` +
          'the journal belongs to another state. Both were left untouched; remove the journal only if you are sure ' +
          'its operations are not needed.',
      );
    }
    applyEntry(index, entry);
  });
  return { ...doc, resources: sortResources(index.values()) };
}

/**
 * Replays a rescue file's entries like journal entries (same lineage rule),
 * except one: an entry that records a resource without an id (a create
 * answered 409, adopted) never replaces a record that has one. A rescue file
 * comes from an apply that could no longer record, typically one whose lock
 * was taken over; by the time it is replayed, the apply that took over may
 * have created that resource itself and recorded its id, which the 409 of
 * the displaced apply only confirms. Returns the records kept that way.
 */
export function applyRescue(
  doc: StateDocument,
  entries: readonly JournalEntry[],
  where: string,
): { doc: StateDocument; kept: RecordedResource[] } {
  const index = indexByAddress(doc);
  const kept: RecordedResource[] = [];
  const applied = entries.filter((entry) => {
    if (entry.op !== 'put' || entry.resource.id !== null) return true;
    const recorded = index.get(entry.resource.address);
    if (recorded?.id == null) return true;
    kept.push(recorded);
    return false;
  });
  return { doc: applyJournal(doc, applied, where), kept };
}

/**
 * The compare-and-set rule every store applies before a write: `expected`
 * (when given) must match what is stored (null = nothing stored), and within
 * one lineage the serial must grow. Throws STATE_CONFLICT otherwise.
 */
export function checkCompareAndSet(
  stored: Pick<StateDocument, 'lineage' | 'serial'> | null,
  expected: { lineage: string; serial: number } | null | undefined,
  next: Pick<StateDocument, 'lineage' | 'serial'>,
  where: string,
): void {
  const found = stored ? `lineage ${stored.lineage} serial ${stored.serial}` : 'no state';
  const conflict = (what: string) =>
    new StateError(
      'STATE_CONFLICT',
      `state ${where} ${what}; nothing was written. Another process changed it: run the command again.`,
    );
  if (expected !== undefined) {
    const wanted = expected ? `lineage ${expected.lineage} serial ${expected.serial}` : 'no state';
    const same =
      expected === null
        ? stored === null
        : stored !== null && stored.lineage === expected.lineage && stored.serial === expected.serial;
    if (!same) throw conflict(`changed since it was read: expected ${wanted}, found ${found}`);
  }
  if (stored && stored.lineage === next.lineage && next.serial <= stored.serial) {
    throw conflict(
      `already has serial ${stored.serial}; a new write of lineage ${next.lineage} needs a higher serial than ${next.serial}`,
    );
  }
}
