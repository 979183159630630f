/**
 * Finding and reading config files. A PATH is a file (read whatever its name)
 * or a directory: every *.yaml / *.yml below it, recursively, in sorted path
 * order. Entries whose name starts with "." (.git, .github, .tenantform, dot
 * files) and node_modules are skipped, as are the files given as --var-file.
 * Symlinks are followed, to files and to directories alike; a symlink that
 * cannot be followed (dangling, or a loop: a directory that leads back to one
 * it is inside) and a directory that cannot be listed are reported, by their
 * own path. Nothing else is left out: a skipped file would plan deletes.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ConfigIssue, ConfigLimits } from './types.js';
import { decodeUtf8 } from './utf8.js';

const CONFIG_FILE = /\.ya?ml$/i;

/** A path as shown to the user: relative to cwd when inside it, else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) return abs;
  return rel;
}

export function fileIssue(file: string, message: string, code: string): ConfigIssue {
  return { file, line: 0, col: 0, message, code };
}

function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}

/**
 * Directories one search may list: a config repository has far fewer, and a
 * path such as `/`, `/proc` or `/sys` far more (it would never end). Past it
 * the search stops, saying to give the config's own directory.
 */
export const MAX_DIRECTORIES = 20_000;

/** What a search may still do: directories left to list, and the signal that stops it (Ctrl+C). */
interface WalkBudget {
  dirsLeft: number;
  signal?: AbortSignal;
}

class TooManyDirectories extends Error {}

/** A directory's identity on disk (device and inode), the same through every link to it. */
type DirKey = string;

async function dirKey(path: string): Promise<DirKey> {
  const info = await stat(path);
  return `${info.dev}:${info.ino}`;
}

/**
 * Collects the config files below `dir`, following symlinks. `ancestors`
 * holds the directories being walked (by identity, so that a link to one of
 * them is seen for what it is): a symlink back into one of them is a loop,
 * reported by the link's own path; so are a symlink that cannot be followed
 * and a directory that cannot be listed. Nothing is skipped silently: a
 * skipped file would turn into planned deletes.
 */
async function walk(
  dir: string,
  out: string[],
  problems: { path: string; message: string }[],
  ancestors: ReadonlySet<DirKey>,
  budget: WalkBudget,
): Promise<void> {
  budget.signal?.throwIfAborted();
  if (--budget.dirsLeft < 0) throw new TooManyDirectories();
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    problems.push({ path: dir, message: `cannot list this directory: ${reason(err)}` });
    return;
  }
  for (const entry of entries) {
    // tenantform.yaml is the project file (see project.ts), never config.
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'tenantform.yaml')
      continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await walkInto(full, out, problems, ancestors, budget);
    else if (entry.isSymbolicLink()) await followLink(full, entry.name, out, problems, ancestors, budget);
    else if (CONFIG_FILE.test(entry.name) && entry.isFile()) out.push(full);
  }
}

/** Walks the directory `path` (reached directly or through a link) unless it is one of its own ancestors. */
async function walkInto(
  path: string,
  out: string[],
  problems: { path: string; message: string }[],
  ancestors: ReadonlySet<DirKey>,
  budget: WalkBudget,
): Promise<void> {
  let key: DirKey;
  try {
    key = await dirKey(path);
  } catch (err) {
    problems.push({ path, message: `cannot read this directory: ${reason(err)}` });
    return;
  }
  if (ancestors.has(key)) {
    problems.push({
      path,
      message:
        'symlink loop: this directory leads back to a directory it is inside; remove the link or point it elsewhere',
    });
    return;
  }
  await walk(path, out, problems, new Set(ancestors).add(key), budget);
}

/** A symlink: to a config file, it is one; to a directory, its files are; otherwise why it cannot be followed. */
async function followLink(
  path: string,
  name: string,
  out: string[],
  problems: { path: string; message: string }[],
  ancestors: ReadonlySet<DirKey>,
  budget: WalkBudget,
): Promise<void> {
  let target;
  try {
    target = await stat(path);
  } catch (err) {
    problems.push({ path, message: brokenLink(err) });
    return;
  }
  if (target.isDirectory()) await walkInto(path, out, problems, ancestors, budget);
  else if (target.isFile() && CONFIG_FILE.test(name)) out.push(path);
}

function brokenLink(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ELOOP')
    return 'symlink loop: this link leads back to itself; remove it or point it at a file';
  if (code === 'ENOENT')
    return 'dangling symlink: its target does not exist; remove the link or restore the file';
  return `cannot follow this symlink: ${reason(err)}`;
}

/** Absolute paths of the config files under `paths`, deduplicated, with issues for paths that yield none. */
export async function findConfigFiles(
  paths: readonly string[],
  cwd: string,
  exclude: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<{ files: string[]; issues: ConfigIssue[] }> {
  const files: string[] = [];
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  const budget: WalkBudget = { dirsLeft: MAX_DIRECTORIES, ...(signal ? { signal } : {}) };
  for (const path of paths) {
    const abs = resolve(cwd, path);
    const shown = displayPath(abs, cwd);
    let found: string[];
    try {
      const info = await stat(abs);
      if (info.isFile()) found = [abs];
      else if (info.isDirectory()) {
        found = [];
        const problems: { path: string; message: string }[] = [];
        try {
          await walk(abs, found, problems, new Set([await dirKey(abs)]), budget);
        } catch (err) {
          if (!(err instanceof TooManyDirectories)) throw err;
          issues.push(
            fileIssue(
              shown,
              `more than ${MAX_DIRECTORIES} directories below it, so it is not a config directory; give the directory that holds the config files`,
              'PATH_TOO_LARGE',
            ),
          );
          continue;
        }
        for (const problem of problems)
          issues.push(fileIssue(displayPath(problem.path, cwd), problem.message, 'PATH_UNREADABLE'));
        found = found.filter((f) => !exclude.has(f)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (found.length === 0 && problems.length === 0)
          issues.push(fileIssue(shown, 'no .yaml or .yml config files in this directory', 'NO_CONFIG_FILES'));
      } else {
        issues.push(fileIssue(shown, 'not a file or directory', 'PATH_NOT_FOUND'));
        continue;
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason; // stopped (Ctrl+C): no issue to report
      issues.push(fileIssue(shown, `cannot read: ${reason(err)}`, 'PATH_NOT_FOUND'));
      continue;
    }
    for (const file of found) {
      if (seen.has(file)) continue;
      seen.add(file);
      files.push(file);
    }
  }
  return { files, issues };
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Reads a file as UTF-8 text within the size limit, or says why it cannot. */
export async function readTextFile(
  abs: string,
  shown: string,
  limits: ConfigLimits,
): Promise<{ text: string } | { issue: ConfigIssue }> {
  const tooLarge = (size: number) => ({
    issue: fileIssue(
      shown,
      `file is ${formatBytes(size)}${size < 1024 ? '' : ` (${size} bytes)`}, over the ${formatBytes(limits.maxFileBytes)} limit for one file; split it into several files`,
      'FILE_TOO_LARGE',
    ),
  });
  let bytes: Uint8Array;
  try {
    const info = await stat(abs);
    // A FIFO or a device would be read forever (or wait for a writer): only a regular file is read.
    if (!info.isFile()) return { issue: fileIssue(shown, 'not a regular file', 'FILE_UNREADABLE') };
    if (info.size > limits.maxFileBytes) return tooLarge(info.size);
    bytes = await readFile(abs);
  } catch (err) {
    return { issue: fileIssue(shown, `cannot read: ${reason(err)}`, 'FILE_UNREADABLE') };
  }
  if (bytes.length > limits.maxFileBytes) return tooLarge(bytes.length);
  const decoded = decodeUtf8(bytes);
  if ('text' in decoded) return decoded;
  const hex = decoded.byte.toString(16).padStart(2, '0');
  return {
    issue: {
      file: shown,
      line: decoded.line,
      col: decoded.col,
      message: `invalid UTF-8 (byte 0x${hex}); save the file as UTF-8`,
      code: 'FILE_NOT_UTF8',
    },
  };
}
