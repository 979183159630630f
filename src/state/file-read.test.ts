/**
 * Reading a state file a piece at a time (file-read.ts) gives exactly what
 * JSON.parse of the whole text gives, or gives up (undefined) so that the
 * store reads the file whole and reports the problem as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStateValue } from './file-read.js';
import { createFileStateStore } from './file-store.js';

const dir = mkdtempSync(join(tmpdir(), 'tf-file-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function read(text: string | Buffer): Promise<unknown> {
  const path = join(dir, `state-${++files}.json`);
  writeFileSync(path, text);
  return readStateValue(path);
}

const record = (i: number) => ({
  kind: 'rate_limit_policy',
  address: `rate_limit_policy["oauth_authentication_api","client","client_id:c-${i}"]`,
  identity: ['oauth_authentication_api', 'client', `client_id:c-${i}`],
  // Quotes, backslashes, brackets and the element separator's look-alike inside strings.
  attributes: {
    note: `"${'\\'.repeat(i % 3)}},\\n    },[${'é'.repeat(i % 5)}😀`,
    nested: { list: [i, { x: [] }] },
  },
  id: i % 7 === 0 ? null : `rlp_${i}`,
});

/** A document of `n` records: several megabytes at 20,000, so that it spans many pieces. */
const doc = (n: number) => ({
  format_version: 2,
  lineage: 'resources',
  serial: 3,
  resources: Array.from({ length: n }, (_, i) => record(i)),
});

describe('readStateValue', () => {
  it('gives what JSON.parse gives, laid out as tenantform writes states and otherwise', async () => {
    for (const n of [0, 1, 2, 20_000]) {
      const value = doc(n);
      expect(await read(JSON.stringify(value, null, 2) + '\n')).toEqual(value);
      expect(await read(JSON.stringify(value))).toEqual(value);
      expect(await read(JSON.stringify(value, null, '\t'))).toEqual(value);
    }
    const odd = [
      '{"a":"resources","resources":[1,{"resources":[2]}],"b":[3]}',
      '[1,2]',
      '{"resour\\u0063es":[5]}',
    ];
    for (const text of odd) expect(await read(text)).toEqual(JSON.parse(text));
  });

  it('drops a byte order mark, as the strict decoder of the whole file does', async () => {
    const value = doc(3);
    expect(await read('\ufeff' + JSON.stringify(value, null, 2))).toEqual(value);
  });

  it('gives up on what JSON.parse refuses or reads otherwise, and on bytes that are not UTF-8', async () => {
    const pretty = JSON.stringify(doc(2), null, 2);
    const refused = [
      '',
      '{"resources":[1,]}',
      '{"resources":[1}',
      '{"resources":[1] x',
      pretty.replace(/\n {4}\}\n {2}\]/, '\n    },\n  ]'), // a trailing comma after the last element
      pretty.slice(0, -3),
      // A second list: JSON.parse keeps the last, the pieces would be of the first.
      '{"resources":[1],"resources":[2]}',
      pretty.replace(/\n}$/, ',\n  "resources": []\n}'),
    ];
    for (const text of refused) expect(await read(text), text).toBeUndefined();
    const bytes = Buffer.from(pretty);
    bytes[bytes.indexOf('c-1')] = 0xff;
    expect(await read(bytes)).toBeUndefined();
    expect(await readStateValue(join(dir, 'missing.json'))).toBeUndefined();
  });

  it('hands each element of the list to `each` as it is parsed, in order, once', async () => {
    const value = doc(20_000);
    for (const text of [
      JSON.stringify(value, null, 2),
      JSON.stringify(value),
      JSON.stringify(value, null, '\t'),
    ]) {
      const path = join(dir, `state-${++files}.json`);
      writeFileSync(path, text);
      const seen: unknown[] = [];
      let whenDone = -1;
      const read = readStateValue(path, (element) => {
        seen.push(element);
        (element as { seen?: number }).seen = seen.length;
      }).then((result) => {
        whenDone = seen.length;
        return result;
      });
      const result = (await read) as { resources: { seen?: number }[] };
      expect(whenDone).toBe(value.resources.length);
      // The very objects of the value, each seen once, in list order.
      expect(seen).toHaveLength(value.resources.length);
      result.resources.forEach((element, i) => expect(element).toBe(seen[i]));
      expect(result.resources.map((r) => r.seen)).toEqual(value.resources.map((_, i) => i + 1));
    }
  });

  it('lets the store report a file it gives up on as before', async () => {
    const path = join(dir, 'bad.json');
    const bytes = Buffer.from(JSON.stringify(doc(2), null, 2));
    bytes[bytes.indexOf('c-1')] = 0xff;
    writeFileSync(path, bytes);
    await expect(createFileStateStore(path).read()).rejects.toThrow(/is not valid UTF-8/);
    writeFileSync(path, '{"resources":[1,]}');
    await expect(createFileStateStore(path).read()).rejects.toThrow(/is not valid JSON/);
  });
});
