/** loadConfig: the file-system side of config loading (paths, var files, reading), around the pure parser. */
import { resolve } from 'node:path';
import {
  DEFAULT_LIMITS,
  type ConfigIssue,
  type LoadOptions,
  type LoadResult,
  type ParsedFile,
} from './types.js';
import { createVariableLookup } from './variables.js';
import { displayPath, findConfigFiles, readTextFile } from './source-files.js';
import { readVarFile } from './var-file.js';
import { parseConfigText } from './parse-text.js';
import { combineParsedFiles } from './combine.js';

/** Files read at once; enough to hide disk latency, few enough to stay far from descriptor limits. */
const READ_CONCURRENCY = 16;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Loads the config at `path` (a file or directory, or several, merged): reads
 * the var files, finds and reads every config file, interpolates variables,
 * validates against the config schema and checks identities across files.
 * Never throws for problems in the user's files: they come back as issues.
 */
export async function loadConfig(
  path: string | readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const cwd = options.cwd ?? process.cwd();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const paths = typeof path === 'string' ? [path] : path.length > 0 ? path : ['.'];
  const show = (abs: string) => displayPath(abs, cwd);

  const varFiles = (options.varFiles ?? []).map((f) => resolve(cwd, f));
  const varResults = await Promise.all(varFiles.map((abs) => readVarFile(abs, show(abs), limits)));
  const lookup = createVariableLookup({
    vars: options.vars,
    fileVars: varResults.map((r) => r.vars),
    env: options.env ?? process.env,
  });

  const found = await findConfigFiles(paths, cwd, new Set(varFiles), options.signal);
  const parsed = await mapLimit(found.files, READ_CONCURRENCY, async (abs): Promise<ParsedFile> => {
    const file = show(abs);
    options.signal?.throwIfAborted();
    const read = await readTextFile(abs, file, limits);
    if ('issue' in read) return { file, issues: [read.issue], resources: [] };
    const result = parseConfigText(read.text, file, { vars: lookup, limits });
    // Parsing is synchronous: a Ctrl+C during it is handled on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    return result;
  });
  const before: ConfigIssue[] = [...varResults.flatMap((r) => r.issues), ...found.issues];
  return combineParsedFiles(parsed, before, found.files.map(show));
}
