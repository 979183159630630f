/**
 * The `--data FILE` persistence: the tenant as one JSON document
 * {"version": 1, "rateLimitPolicies": [...], "userPermissions": {...},
 * "tokenExchangeProfiles": [...]}. Loaded (and checked) on start; written
 * after changes, coalesced over a short delay, atomically (temporary file in
 * the same folder, fsync, rename) with mode 0600, and flushed on stop.
 * Clients, secrets and tokens are never written.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { matchesSchema, requiredFields } from '../schemas/index.js';
import { EmulatorOptionError } from './faults.js';
import type { EmulatorSnapshot } from './types.js';

export const DATA_FILE_VERSION = 1;

/** A stored profile has every field a create request requires (the response schema marks none required). */
const PROFILE_FIELDS = requiredFields('token-exchange-profile-create-request.schema.json');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasTimes(value: unknown): boolean {
  return isRecord(value) && typeof value.created_at === 'string' && typeof value.updated_at === 'string';
}

/** Checks a parsed data file (or a seeded state); returns the reason it is unusable, or undefined. */
export function snapshotProblem(doc: unknown): string | undefined {
  if (!isRecord(doc)) return 'not a JSON object';
  if (doc.version !== DATA_FILE_VERSION) return `unknown version ${JSON.stringify(doc.version)} (expected 1)`;
  const { rateLimitPolicies: policies, tokenExchangeProfiles: profiles, userPermissions: perms } = doc;
  if (!Array.isArray(policies) || !Array.isArray(profiles) || !isRecord(perms)) {
    return 'rateLimitPolicies, tokenExchangeProfiles (lists) and userPermissions (mapping) are required';
  }
  const identities = new Set<string>();
  for (const p of policies) {
    if (!matchesSchema('rateLimitPolicy', p) || !hasTimes(p)) return 'a rate limit policy is malformed';
    const r = p as Record<string, string>;
    const key = `${r.resource}\u0000${r.consumer}\u0000${r.consumer_selector}`;
    if (identities.has(key) || identities.has(r.id!)) return `rate limit policy ${r.id} is listed twice`;
    identities.add(key).add(r.id!);
  }
  const types = new Set<string>();
  for (const p of profiles) {
    if (
      !matchesSchema('tokenExchangeProfile', p) ||
      !hasTimes(p) ||
      !PROFILE_FIELDS.every((f) => typeof p[f] === 'string')
    ) {
      return 'a token exchange profile is malformed';
    }
    if (types.has(p.subject_token_type)) return `subject_token_type ${p.subject_token_type} is listed twice`;
    types.add(p.subject_token_type);
  }
  for (const [user, grants] of Object.entries(perms)) {
    if (!Array.isArray(grants) || !grants.every((g) => matchesSchema('permissionRequestItem', g))) {
      return `the permissions of user ${JSON.stringify(user)} are malformed`;
    }
  }
  return undefined;
}

/** Reads the data file; undefined when it does not exist yet. Throws EmulatorOptionError when unusable. */
export async function loadDataFile(path: string): Promise<EmulatorSnapshot | undefined> {
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
  const why = snapshotProblem(doc);
  if (why) throw new EmulatorOptionError(`data file ${path} is unusable: ${why}`);
  const { rateLimitPolicies, userPermissions, tokenExchangeProfiles } = doc as unknown as EmulatorSnapshot;
  return { rateLimitPolicies, userPermissions, tokenExchangeProfiles };
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
