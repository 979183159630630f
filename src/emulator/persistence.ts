/**
 * The `--data FILE` persistence: the tenant as one JSON document, the
 * version and one part per kind module (its `key`): {"version": 1,
 * "rateLimitPolicies": [...], "userPermissions": {...},
 * "tokenExchangeProfiles": [...]}, and under API profile full the reference
 * data ("clients", "actions", "resourceServers"). A part left out is empty
 * (reference data: the defaults). Loaded (and checked, each part by its module) on start; written
 * after changes, coalesced over a short delay, atomically (temporary file in
 * the same folder, fsync, rename) with mode 0600, and flushed on stop.
 * Clients, secrets and tokens are never written.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EmulatorOptionError } from './faults.js';
import { initialPart, isRecord } from './kinds/kind.js';
import { EMULATOR_KINDS, type EmulatorKind } from './kinds/index.js';
import type { EmulatorSnapshot } from './types.js';

export const DATA_FILE_VERSION = 1;

/**
 * Checks a parsed data file (or a seeded state); returns the reason it is
 * unusable, or undefined. A part left out is the module's initial part (empty,
 * or the defaults of reference data), so a file written before a kind was
 * added still loads.
 */
export function snapshotProblem(doc: unknown, kinds: readonly EmulatorKind[]): string | undefined {
  if (!isRecord(doc)) return 'not a JSON object';
  if (doc.version !== DATA_FILE_VERSION) return `unknown version ${JSON.stringify(doc.version)} (expected 1)`;
  const present = kinds.filter((m) => doc[m.key] !== undefined);
  const misshaped = present.find((m) =>
    m.shape === 'list' ? !Array.isArray(doc[m.key]) : !isRecord(doc[m.key]),
  );
  if (misshaped) return `${misshaped.key} must be ${misshaped.shape === 'list' ? 'a list' : 'a mapping'}`;
  for (const m of present) {
    const why = m.check(doc[m.key]);
    if (why) return why;
  }
  return undefined;
}

/** The snapshot a checked document holds: each module's part (the defaults for one left out). */
export function snapshotOf(doc: Record<string, unknown>, kinds: readonly EmulatorKind[]): EmulatorSnapshot {
  return Object.fromEntries(kinds.map((m) => [m.key, doc[m.key] ?? initialPart(m)])) as EmulatorSnapshot;
}

/** Reads the data file; undefined when it does not exist yet. Throws EmulatorOptionError when unusable. */
export async function loadDataFile(
  path: string,
  kinds: readonly EmulatorKind[] = EMULATOR_KINDS,
): Promise<EmulatorSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EmulatorOptionError(`cannot read data file ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new EmulatorOptionError(`data file ${path} is not valid JSON`);
  }
  const why = snapshotProblem(doc, kinds);
  if (why) throw new EmulatorOptionError(`data file ${path} is unusable: ${why}`);
  return snapshotOf(doc as Record<string, unknown>, kinds);
}

async function writeAtomically(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Coalesces change notifications into few atomic writes of the whole snapshot. */
export class DataFileWriter {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private dirty = false;
  private lastError: Error | undefined;

  constructor(
    private readonly path: string,
    private readonly read: () => EmulatorSnapshot,
    private readonly delayMs: number,
    private readonly onError: (err: Error) => void = () => {},
  ) {}

  /** Notes a change; the write happens after delayMs, together with later changes. */
  schedule(): void {
    this.dirty = true;
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.delayMs);
  }

  private drain(): Promise<void> {
    this.running ??= (async () => {
      while (this.dirty) {
        this.dirty = false;
        const doc = { version: DATA_FILE_VERSION, ...this.read() };
        try {
          await writeAtomically(this.path, `${JSON.stringify(doc, null, 2)}\n`);
          this.lastError = undefined;
        } catch (err) {
          this.lastError = err as Error;
          this.onError(this.lastError);
        }
      }
      this.running = undefined;
    })();
    return this.running;
  }

  /** Writes pending changes now; rejects with the last write error, if the last write failed. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.running;
    if (this.dirty) await this.drain();
    if (this.lastError) throw this.lastError;
  }
}
