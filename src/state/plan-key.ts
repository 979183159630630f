/**
 * The plan key of a file state: the secret that seals the state's saved plans
 * (see src/plan/plan-seal.ts), kept beside the state file as
 * `state.json.key`, mode 0600: 32 random bytes as 64 hex digits and a
 * newline. Made by the first `plan --out` (created exclusively, so that two
 * runs making it at once end with one key); never made by a command that
 * checks a seal. A key other users can read is refused: anyone who can read
 * it can seal a plan that apply takes.
 */
import { link, open, unlink } from 'node:fs/promises';
import { StateError, ioError } from './errors.js';
import { syncDirectory, tempPathFor, type SyncFn } from './file-io.js';
import { randomBytes } from './random.js';

const KEY_BYTES = 32;
const KEY_TEXT = /^([0-9a-f]{64})\n?$/;

/** A new key's text. */
function newKeyText(): string {
  return randomBytes(KEY_BYTES).toString('hex') + '\n';
}

/** The key in `path`, or null when there is none; refuses a key others can read, or a damaged one. */
export async function readPlanKey(path: string): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(`read the plan key ${path}`, err);
  }
  try {
    const mode = (await handle.stat()).mode & 0o777;
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new StateError(
        'STATE_KEY',
        `the plan key ${path} can be read by other users (mode 0${mode.toString(8)}): anyone who can read it can ` +
          `seal a plan that apply takes, so it is not used. If nobody else can have read it, make it private ` +
          `(chmod 600 ${path}); otherwise delete it, and make again the plans saved since.`,
      );
    }
    const match = KEY_TEXT.exec(await handle.readFile('utf8'));
    if (!match) {
      throw new StateError(
        'STATE_KEY',
        `the plan key ${path} is damaged (it must be 64 hex digits); delete it, and make again the plans saved since`,
      );
    }
    return Buffer.from(match[1]!, 'hex');
  } catch (err) {
    throw ioError(`read the plan key ${path}`, err);
  } finally {
    await handle.close();
  }
}

const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'ENOSYS', 'EXDEV']);

/** Creates `path` (failing with EEXIST when present) holding a new key, synced. */
async function writeNew(path: string, sync: SyncFn): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(newKeyText());
    await sync(handle, 'state');
  } finally {
    await handle.close();
  }
}

/**
 * The key in `path`, created (mode 0600, whole before it appears: written to
 * a temp file, then hard-linked into place) when there is none. The caller
 * has made the directory.
 */
export async function ensurePlanKey(path: string, dir: string, sync: SyncFn): Promise<Buffer> {
  const existing = await readPlanKey(path);
  if (existing) return existing;
  const temp = tempPathFor(path);
  try {
    await writeNew(temp, sync);
    try {
      await link(temp, path);
    } catch (err) {
      // Filesystems without hard links: an exclusive create (a reader may then see it half-written, and refuse it).
      if (!NO_LINKS.has(String((err as NodeJS.ErrnoException).code))) throw err;
      await writeNew(path, sync);
    }
    await syncDirectory(dir, sync);
  } catch (err) {
    // Another run made it first: theirs is the key.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(`create the plan key ${path}`, err);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  const made = await readPlanKey(path);
  if (!made) throw new StateError('STATE_IO', `could not create the plan key ${path}: it vanished`);
  return made;
}
