/**
 * The names (and the rate-limit facts, at the end) kept beside a file state (`state.json.names`, mode 0600): what
 * the tenant called the applications, Actions and APIs when it was last read
 * (src/resources/known-names.ts). Not part of the state document: written
 * without the lock and without a serial, so keeping names never makes a
 * saved plan stale and never touches what plan and apply act on. Written
 * atomically (temp file, rename); the last writer wins.
 */
import { parseKnownNames, knownNamesDocument, type KnownNames } from '../resources/index.js';
import { ensureDirectory, readBytes, syncDirectory, writeFileAtomic, type SyncFn } from './file-io.js';

/** The names in `path`; null when there is none, or it is not a names document (a damaged one is no error). */
export async function readNamesFile(path: string): Promise<KnownNames | null> {
  const bytes = await readBytes(path);
  if (!bytes) return null;
  try {
    return parseKnownNames(JSON.parse(bytes.toString('utf8')));
  } catch {
    return null;
  }
}

/** Writes `known` to `path` (mode 0600), making its directory (0700) when missing. */
export async function writeNamesFile(
  path: string,
  dir: string,
  known: KnownNames,
  sync: SyncFn,
): Promise<void> {
  await ensureDirectory(dir);
  await writeFileAtomic(path, JSON.stringify(knownNamesDocument(known), null, 2) + '\n', sync, 'state');
  await syncDirectory(dir, sync);
}

/** The text of the rate-limit facts in `path` (`state.json.rate-limits`); null when there is none. */
export async function readRateLimitsFile(path: string): Promise<string | null> {
  const bytes = await readBytes(path);
  return bytes ? bytes.toString('utf8') : null;
}

/**
 * Writes the rate-limit facts to `path` (mode 0600) by rename, without a sync:
 * they are a hint for the next run's first round, and a crash that loses
 * them (or leaves an empty file, read as none) costs that run one request's
 * round, never an operation; an fsync would cost every apply's end.
 */
export async function writeRateLimitsFile(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, async () => undefined, 'state');
}
