import { describe, expect, it } from 'vitest';
import { profile, putEntry, stateDoc } from '../../test/helpers/state-contract.js';
import {
  checkDocumentToWrite,
  checkJournalEntry,
  parseJournalText,
  parseStateText,
  recordStringSharer,
} from './validate.js';

function failure(fn: () => unknown): { code?: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('state document validation', () => {
  it('sorts resources by address when reading', () => {
    const text = JSON.stringify(stateDoc(2, [profile(2), profile(1)]));
    expect(parseStateText(text, 'state file s.json').resources).toEqual([profile(1), profile(2)]);
  });

  it.each([
    [
      'an address that does not match kind and identity',
      [{ ...profile(1), address: 'token_exchange_profile["x"]' }],
      'but kind and identity say',
    ],
    ['an unknown resource kind', [{ ...profile(1), kind: 'no_such_kind' }], 'kind must be one of'],
    ['an unknown resource property', [{ ...profile(1), note: 'x' }], 'unknown property "note"'],
    ['a missing id', [{ ...profile(1), id: undefined }], 'missing required property "id"'],
  ])('refuses a stored document with %s, naming where', (_label, resources, detail) => {
    const err = failure(() =>
      parseStateText(JSON.stringify({ ...stateDoc(1), resources }), 'state file s.json'),
    );
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toContain('state file s.json');
    expect(err.message).toContain(detail);
  });

  it('names each address recorded twice by its place in the document, and its other problems in order', () => {
    const moved = { ...profile(3), address: 'token_exchange_profile["x"]' };
    const resources = [profile(2), profile(1), moved, profile(4), profile(2), profile(1)];
    const err = failure(() =>
      parseStateText(JSON.stringify({ ...stateDoc(1), resources }), 'state file s.json'),
    );
    expect(err.code).toBe('STATE_CORRUPT');
    expect(err.message).toContain(
      `resources[2].address is ${moved.address} but kind and identity say ${profile(3).address}; ` +
        `resources[4].address ${profile(2).address} appears twice; ` +
        `resources[5].address ${profile(1).address} appears twice.`,
    );
    const write = failure(() =>
      checkDocumentToWrite({ ...stateDoc(1), resources: [profile(1), profile(1)] }, 's.json'),
    );
    expect(write.code).toBe('STATE_INVALID');
    expect(write.message).toContain(`resources[1].address ${profile(1).address} appears twice`);
  });

  it('reports a caller’s invalid document as STATE_INVALID, saying nothing was written', () => {
    const err = failure(() => checkDocumentToWrite({ ...stateDoc(1), lineage: '' }, 's.json'));
    expect(err.code).toBe('STATE_INVALID');
    expect(err.message).toContain('refusing to write');
  });
});

describe('recordStringSharer', () => {
  it('changes no value of a record, and leaves what is not a record as it is', () => {
    const share = recordStringSharer();
    const record = {
      kind: 'user_permission',
      address: 'user_permission["auth0|u","https://api","read"]',
      identity: ['auth0|u', 'https://api', 'read'],
      attributes: { user_id: 'auth0|u', resource_server_identifier: 'https://api', permission_name: 'read' },
    };
    const odd: unknown[] = [
      null,
      7,
      'text',
      [1, 2],
      { kind: 'no_such_kind', identity: ['a'], attributes: { a: 'a' } },
      { kind: 'user_permission', identity: 'auth0|u', attributes: { user_id: 'auth0|u' } },
      { kind: 'user_permission', identity: ['auth0|u'], attributes: null },
      { kind: 'user_permission', identity: ['auth0|u'], attributes: { user_id: 5 } },
      { kind: 'user_permission', identity: [], attributes: Object.create({ user_id: 'inherited' }) },
      { kind: 'toString', identity: [], attributes: {} },
    ];
    const before = structuredClone([record, record, odd]);
    const again = structuredClone(record);
    for (const value of [record, again, ...odd]) share(value);
    expect(structuredClone([record, again, odd])).toEqual(before);
    expect(Object.keys(record.attributes)).toEqual([
      'user_id',
      'resource_server_identifier',
      'permission_name',
    ]);
  });
});

describe('journal validation', () => {
  it.each([
    ['not an object', 42, 'STATE_CORRUPT', 'expected an object'],
    ['an unknown op', { v: 1, lineage: 'l', op: 'patch' }, 'STATE_CORRUPT', 'op must be put or remove'],
    ['a remove without address', { v: 1, lineage: 'l', op: 'remove' }, 'STATE_CORRUPT', 'address must be'],
    ['an extra property', { ...putEntry(profile(1)), at: 'now' }, 'STATE_CORRUPT', 'unknown property "at"'],
    [
      'a put of an invalid resource',
      putEntry({ ...profile(1), identity: [] }),
      'STATE_CORRUPT',
      'resource.identity',
    ],
    ['a newer version', { ...putEntry(profile(1)), v: 2 }, 'STATE_UNKNOWN_VERSION', 'journal version 2'],
  ])('refuses an entry that is %s', (_label, value, code, detail) => {
    const err = failure(() => checkJournalEntry(value, 'journal j line 1'));
    expect(err.code).toBe(code);
    expect(err.message).toContain(detail);
  });

  it.each([
    ['an empty journal', '', 0, false],
    ['complete lines only', JSON.stringify(putEntry(profile(1))) + '\n', 1, false],
    ['a torn tail', JSON.stringify(putEntry(profile(1))) + '\n{"v":1', 1, true],
    [
      'blank lines between entries',
      `${JSON.stringify(putEntry(profile(1)))}\n\n${JSON.stringify(putEntry(profile(2)))}\n`,
      2,
      false,
    ],
  ])('parses %s', (_label, text, count, torn) => {
    const parsed = parseJournalText(text, 'journal j');
    expect(parsed.entries).toHaveLength(count);
    expect(parsed.torn).toBe(torn);
  });

  it('counts valid bytes up to the torn tail, so that an append can cut it off', () => {
    const good = JSON.stringify(putEntry(profile(1, 'tep_é'))) + '\n';
    expect(parseJournalText(good + '{"v":', 'journal j').validBytes).toBe(Buffer.byteLength(good));
  });
});
