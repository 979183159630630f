/**
 * Names kept from reads of the tenant: what it called the applications,
 * Actions and APIs (the reference lists' items) when tenantform last read
 * them, each with when it was read. Kept beside the state so that a plan made
 * without reading the tenant (offline, saved with --out) can still show
 * `Mobile app (client_id:Vb4n…)`. Display only: nothing plans, checks or
 * applies from them, so a stale name can never change what a plan does.
 * Only a key, its name and a time are kept: nothing else a list gives.
 */
import type { ReferenceRead } from './references.js';

/** One item's name and when the tenant gave it (ISO 8601). */
export interface KnownName {
  name: string;
  read_at: string;
}

/** Reference list (client, action, resource_server) → the item's key → its name and when it was read. */
export interface KnownNames {
  lists: Record<string, Record<string, KnownName>>;
}

/** The version written in a names document; another one is read as no names. */
export const KNOWN_NAMES_VERSION = 1;

/** The longest name and key kept (a name on the tenant is at most a few hundred characters). */
const MAX_TEXT = 1000;

/** The names a read gave, each read at `readAt`. */
export function knownNamesOf(read: ReferenceRead, readAt: string): KnownNames {
  const lists: KnownNames['lists'] = {};
  for (const [list, items] of Object.entries(read.items)) {
    for (const item of items) {
      if (!item.name || item.name.length > MAX_TEXT || item.key.length > MAX_TEXT) continue;
      (lists[list] ??= {})[item.key] = { name: item.name, read_at: readAt };
    }
  }
  return { lists };
}

/** `older` with every name of `newer` put over it (a renamed item takes its new name); keys sorted. */
export function mergeKnownNames(older: KnownNames | null, newer: KnownNames): KnownNames {
  const lists: KnownNames['lists'] = {};
  for (const source of [older?.lists ?? {}, newer.lists]) {
    for (const [list, items] of Object.entries(source)) Object.assign((lists[list] ??= {}), items);
  }
  const sorted = (record: Record<string, KnownName>) =>
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]!]),
    );
  return {
    lists: Object.fromEntries(
      Object.keys(lists)
        .sort()
        .map((l) => [l, sorted(lists[l]!)]),
    ),
  };
}

/** True when `known` names nothing. */
export function noKnownNames(known: KnownNames | null): boolean {
  return !known || Object.values(known.lists).every((items) => Object.keys(items).length === 0);
}

/** The document kept beside the state: `{"tenantform_names": 1, "lists": {…}}`. */
export function knownNamesDocument(known: KnownNames): Record<string, unknown> {
  return { tenantform_names: KNOWN_NAMES_VERSION, lists: known.lists };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function knownName(value: unknown): KnownName | null {
  if (!isRecord(value)) return null;
  const { name, read_at: readAt } = value;
  if (typeof name !== 'string' || typeof readAt !== 'string') return null;
  if (name.length === 0 || name.length > MAX_TEXT || Number.isNaN(Date.parse(readAt))) return null;
  return { name, read_at: readAt };
}

/**
 * The names in a stored names document; null for anything else (another
 * version, a damaged file): names are display only, so what cannot be read
 * is left out, never an error. An entry that is not a name and a time is dropped.
 */
export function parseKnownNames(value: unknown): KnownNames | null {
  if (!isRecord(value) || value.tenantform_names !== KNOWN_NAMES_VERSION || !isRecord(value.lists))
    return null;
  const lists: KnownNames['lists'] = {};
  for (const [list, items] of Object.entries(value.lists)) {
    if (!isRecord(items)) continue;
    for (const [key, entry] of Object.entries(items)) {
      const known = knownName(entry);
      if (known && key.length <= MAX_TEXT) (lists[list] ??= {})[key] = known;
    }
  }
  return { lists };
}
