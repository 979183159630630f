import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { LogSourceError, readSource } from './sources.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const e = (n: number) => ({
  log_id: `l${n}`,
  type: 'seccft',
  client_id: 'a',
  date: `2026-11-20T08:00:0${n}Z`,
});

async function read(name: string, content: string | Buffer) {
  const file = join(dir, name);
  writeFileSync(file, content);
  const got: { id: unknown; line: number }[] = [];
  const result = await readSource(file, (record, _file, line) => got.push({ id: record.log_id, line }));
  return { got, result };
}

describe('readSource', () => {
  it('reads JSON lines, one event a line, blank lines skipped', async () => {
    const { got, result } = await read('a.jsonl', `${JSON.stringify(e(1))}\n\n${JSON.stringify(e(2))}\r\n`);
    expect(got).toEqual([
      { id: 'l1', line: 1 },
      { id: 'l2', line: 3 },
    ]);
    expect(result.records).toBe(2);
  });

  it('reads lines that each hold a GET /api/v2/logs answer (an array of events)', async () => {
    const { got } = await read('pages.jsonl', `${JSON.stringify([e(1), e(2)])}\n${JSON.stringify([e(3)])}\n`);
    expect(got.map((g) => g.id)).toEqual(['l1', 'l2', 'l3']);
  });

  it('reads one JSON array spread over several lines (a saved answer, pretty-printed)', async () => {
    const { got } = await read('answer.json', JSON.stringify([e(1), e(2)], null, 2));
    expect(got.map((g) => g.id)).toEqual(['l1', 'l2']);
  });

  it('reads gzip of JSON lines, told by its first bytes whatever its name', async () => {
    const { got } = await read('logs.txt', gzipSync(`${JSON.stringify(e(1))}\n${JSON.stringify(e(2))}\n`));
    expect(got.map((g) => g.id)).toEqual(['l1', 'l2']);
  });

  it('reads the files of a directory in name order, and not its hidden files or subdirectories', async () => {
    const logs = join(dir, 'logs');
    mkdirSync(join(logs, 'sub'), { recursive: true });
    writeFileSync(join(logs, 'b.jsonl'), JSON.stringify(e(2)));
    writeFileSync(join(logs, 'a.jsonl.gz'), gzipSync(JSON.stringify(e(1))));
    writeFileSync(join(logs, '.hidden'), 'not json');
    writeFileSync(join(logs, 'sub', 'c.jsonl'), JSON.stringify(e(3)));
    const got: unknown[] = [];
    const result = await readSource(logs, (record) => got.push(record.log_id));
    expect(got).toEqual(['l1', 'l2']);
    expect(result.files.map((f) => f.slice(logs.length + 1))).toEqual(['a.jsonl.gz', 'b.jsonl']);
  });

  it.each([
    [
      'a line that is not JSON',
      `${JSON.stringify(e(1))}\n{"type": "s",\n`,
      'bad.jsonl:2: not JSON: {"type": "s",',
    ],
    [
      'a value that is not an event',
      `${JSON.stringify(e(1))}\n42\n`,
      'bad.jsonl:2: not a log event (a JSON object): 42',
    ],
    [
      'an array holding something else',
      `[${JSON.stringify(e(1))}, "x"]\n`,
      'bad.jsonl:1: not a log event (a JSON object): "x"',
    ],
    ['a broken array over several lines', '[\n  {"type": "s"},\n  oops\n]\n', 'bad.jsonl:3: not JSON: oops'],
  ])('stops at %s, naming the file and line', async (_what, content, message) => {
    await expect(read('bad.jsonl', content)).rejects.toThrow(new LogSourceError(join(dir, message)));
  });

  it('names a file that is missing, a directory without files, and a file that is damaged gzip', async () => {
    await expect(readSource(join(dir, 'none.jsonl'), () => {})).rejects.toThrow(
      `${join(dir, 'none.jsonl')}: no such file or directory`,
    );
    mkdirSync(join(dir, 'empty'));
    await expect(readSource(join(dir, 'empty'), () => {})).rejects.toThrow('the directory holds no files');
    const damaged = gzipSync(JSON.stringify(e(1))).subarray(0, 12);
    await expect(read('cut.gz', damaged)).rejects.toThrow(LogSourceError);
  });
});
