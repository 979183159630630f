/**
 * Reading log events from files, as a stream: JSON lines (one event, or one
 * array of events, per line: a log stream's delivery or saved pages of GET
 * /api/v2/logs), a JSON array spread over several lines (one saved answer,
 * read whole: an answer holds at most 100 events), gzip of either (told by
 * its first bytes, not its name), or a directory of such files (its files,
 * not its subdirectories, in name order; hidden files skipped). A line that
 * is not JSON, or JSON that is not an event, stops the read with an error
 * naming the file and line: a report built from part of the evidence would
 * be read as the whole of it.
 */
import { createReadStream, openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as Readline from 'node:readline';
import type * as Zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { printable } from './events.js';

// Reached when a log file is read, not imported: this module is loaded with
// the commands whose code holds it (apply, plan…, see scripts/eager-imports.mjs),
// and most of their runs read no log.
const readline = (): typeof Readline => process.getBuiltinModule('node:readline');
const zlib = (): typeof Zlib => process.getBuiltinModule('node:zlib');

/** A source that cannot be read as log events: the message names the file (and line) and what is wrong. */
export class LogSourceError extends Error {
  override name = 'LogSourceError';
}

/** Receives each event record read, and where it was read (file:line). */
export type RecordSink = (record: Record<string, unknown>, file: string, line: number) => void;

/** What a read covered. */
export interface SourceRead {
  files: string[];
  /** Records read (events, before deciding what they are). */
  records: number;
}

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}

function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** The files of a source path: the file itself, or a directory's files in name order. */
export function sourceFiles(source: string): string[] {
  let stat;
  try {
    stat = statSync(source);
  } catch (err) {
    throw new LogSourceError(`${source}: ${reason(err)}`);
  }
  if (!stat.isDirectory()) return [source];
  const files = readdirSync(source, { withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => path.join(source, e.name))
    .sort();
  if (files.length === 0) throw new LogSourceError(`${source}: the directory holds no files`);
  return files;
}

function deliver(value: unknown, file: string, line: number, sink: RecordSink): number {
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new LogSourceError(
        `${file}:${line}: not a log event (a JSON object): ${short(JSON.stringify(item))}`,
      );
    }
    sink(item as Record<string, unknown>, file, line);
  }
  return items.length;
}

function short(text: string | undefined): string {
  const t = printable(text ?? 'undefined');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/** True when the prefix `text` of a document holds an error (not merely an end that comes too soon). */
function broken(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    const at = /position (\d+)/.exec(message);
    if (at) return Number(at[1]) < text.length;
    return !message.startsWith('Unexpected end');
  }
}

/**
 * The 1-based line of the first error in `text` (a document JSON.parse
 * refuses; its messages do not always say where): the shortest prefix that
 * holds an error ends on it. Null when the document only ends too soon.
 */
function errorLine(text: string): number | null {
  if (!broken(text)) return null;
  let lo = 0;
  let hi = text.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (broken(text.slice(0, mid))) hi = mid;
    else lo = mid;
  }
  let line = 1;
  for (let i = 0; i < hi - 1; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function notJson(file: string, line: number, text: string): LogSourceError {
  return new LogSourceError(`${file}:${line}: not JSON: ${short(text.trim())}`);
}

function open(file: string): Readable {
  const raw = createReadStream(file);
  return isGzip(file) ? raw.pipe(zlib().createGunzip()) : raw;
}

/**
 * Reads one file's records into `sink`, line by line; a file whose first
 * line opens an array it does not close is one JSON document, read whole.
 */
async function readFile(file: string, sink: RecordSink): Promise<number> {
  const lines = readline().createInterface({ input: open(file), crlfDelay: Infinity });
  let records = 0;
  let n = 0;
  let whole: string[] | null = null;
  try {
    for await (const text of lines) {
      n++;
      if (whole) {
        whole.push(text);
        continue;
      }
      const c = text.trimStart().charCodeAt(0);
      if (Number.isNaN(c)) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (records === 0 && c === 91 /* [ */) {
          whole = [text];
          continue;
        }
        throw notJson(file, n, text);
      }
      records += deliver(value, file, n, sink);
    }
  } catch (err) {
    if (err instanceof LogSourceError) throw err;
    throw new LogSourceError(`${file}: ${reason(err)}`);
  }
  if (!whole) return records;
  const text = whole.join('\n');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const line = errorLine(text);
    if (line === null)
      throw new LogSourceError(`${file}:${whole.length}: the JSON array ends before it is closed`);
    throw notJson(file, line, whole[line - 1] ?? '');
  }
  return deliver(value, file, 1, sink);
}

/** Reads every record of `source` (a file or a directory) into `sink`, in file order. */
export async function readSource(source: string, sink: RecordSink): Promise<SourceRead> {
  const files = sourceFiles(source);
  let records = 0;
  for (const file of files) {
    try {
      records += await readFile(file, sink);
    } catch (err) {
      if (err instanceof LogSourceError) throw err;
      throw new LogSourceError(`${file}: ${reason(err)}`);
    }
  }
  return { files, records };
}
