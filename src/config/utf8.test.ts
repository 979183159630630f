import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8 } from './utf8.js';

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)));

describe('firstInvalidUtf8', () => {
  it.each([
    ['ASCII', bytes('abc'), -1],
    ['two, three and four byte characters', bytes('é€😀'), -1],
    ['a lone continuation byte', bytes('ab', [0x80]), 2],
    ['an overlong slash', bytes('a', [0xc0, 0xaf]), 1],
    ['a UTF-16 surrogate', bytes([0xed, 0xa0, 0x80]), 0],
    ['a code point past U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a truncated sequence at the end', bytes('x', [0xe2, 0x82]), 1],
    ['latin-1 é', bytes('caf', [0xe9]), 3],
  ])('finds the first bad byte in %s', (_title, input, offset) => {
    expect(firstInvalidUtf8(input)).toBe(offset);
  });
});

describe('decodeUtf8', () => {
  it('decodes valid text and drops a byte order mark', () => {
    expect(decodeUtf8(bytes([0xef, 0xbb, 0xbf], 'a: 1\n'))).toEqual({ text: 'a: 1\n' });
  });

  it('gives the line and column (in characters) of the first bad byte', () => {
    expect(decodeUtf8(bytes('first\nnaïve ', [0xff], ' rest'))).toEqual({ line: 2, col: 7, byte: 0xff });
  });
});
