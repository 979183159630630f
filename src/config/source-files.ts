/**
 * Finding and reading config files. A PATH is a file (read whatever its name)
 * or a directory: every *.yaml / *.yml below it, recursively, in sorted path
 * order. Entries whose name starts with "." (.git, .github, .tenantform, dot
 * files) and node_modules are skipped, as are symlinked directories and the
 * files given as --var-file. A symlink that cannot be followed (dangling or a
 * loop) and a directory that cannot be listed are reported, by their own path.
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
 * Collects the config files below `dir`. A symlink is followed to a file; a
 * symlink that cannot be followed (its target is missing, or it loops) and a
 * directory that cannot be listed are reported by their own path, never
 * skipped: a skipped file would turn into planned deletes.
 */
async function walk(
  dir: string,
  out: string[],
  problems: { path: string; message: string }[],
): Promise<void> {
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
    if (entry.isDirectory()) await walk(full, out, problems);
    else if (entry.isSymbolicLink()) {
      let target;
      try {
        target = await stat(full);
      } catch (err) {
        problems.push({ path: full, message: brokenLink(err) });
        continue;
      }
      if (target.isFile() && CONFIG_FILE.test(entry.name)) out.push(full);
    } else if (CONFIG_FILE.test(entry.name) && entry.isFile()) out.push(full);
  }
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
): Promise<{ files: string[]; issues: ConfigIssue[] }> {
  const files: string[] = [];
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
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
        await walk(abs, found, problems);
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
