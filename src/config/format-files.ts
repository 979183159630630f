/**
 * `fmt` over files: every config file below the paths (as validate reads
 * them) put into the canonical layout (format.ts). YAML that is another
 * tool's (no config key at the top level) is left alone and named; a file
 * that cannot be read or parsed stops the run before anything is written.
 */
import { writeFileSync } from 'node:fs';
import { formatConfigText, isConfigText } from './format.js';
import { displayPath, findConfigFiles, readTextFile } from './source-files.js';
import { DEFAULT_LIMITS, type ConfigIssue } from './types.js';

/** A file fmt changes: where it is, as shown, and its text before and after. */
export interface FormattedFile {
  abs: string;
  shown: string;
  before: string;
  after: string;
}

/** What fmt found: the files it changes (or would), the YAML it left alone, the problems that stop it. */
export interface FormatOutcome {
  changed: FormattedFile[];
  skipped: string[];
  issues: ConfigIssue[];
}

/**
 * Formats the config files below `paths` (from `cwd`); writes the changed
 * ones when `write` and no file has a problem.
 */
export async function formatFiles(
  paths: readonly string[],
  cwd: string,
  write: boolean,
): Promise<FormatOutcome> {
  const found = await findConfigFiles([...paths], cwd, new Set());
  const issues: ConfigIssue[] = [...found.issues];
  const changed: FormattedFile[] = [];
  const skipped: string[] = [];
  for (const abs of found.files) {
    const shown = displayPath(abs, cwd);
    const read = await readTextFile(abs, shown, DEFAULT_LIMITS);
    if ('issue' in read) {
      issues.push(read.issue);
      continue;
    }
    if (!isConfigText(read.text)) {
      skipped.push(shown);
      continue;
    }
    const result = formatConfigText(read.text, shown);
    issues.push(...result.issues);
    if (result.issues.length === 0 && result.text !== read.text)
      changed.push({ abs, shown, before: read.text, after: result.text });
  }
  if (write && issues.length === 0) for (const file of changed) writeFileSync(file.abs, file.after);
  return { changed, skipped, issues };
}
