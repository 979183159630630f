import { describe, expect, it } from 'vitest';
import { painter, shouldUseColor } from './color.js';

describe('shouldUseColor', () => {
  it.each<[string, { isTTY?: boolean }, Record<string, string | undefined>, boolean]>([
    ['a TTY', { isTTY: true }, {}, true],
    ['a pipe', { isTTY: false }, {}, false],
    ['a stream that does not say', {}, {}, false],
    ['a TTY with NO_COLOR=1', { isTTY: true }, { NO_COLOR: '1' }, false],
    ['a TTY with NO_COLOR=anything', { isTTY: true }, { NO_COLOR: 'yes please' }, false],
    ['a TTY with an empty NO_COLOR', { isTTY: true }, { NO_COLOR: '' }, true],
    ['a TTY with TERM=dumb', { isTTY: true }, { TERM: 'dumb' }, false],
    ['a pipe with FORCE_COLOR=1', { isTTY: false }, { FORCE_COLOR: '1' }, true],
    ['a pipe with an empty FORCE_COLOR', { isTTY: false }, { FORCE_COLOR: '' }, true],
    ['a TTY with FORCE_COLOR=0', { isTTY: true }, { FORCE_COLOR: '0' }, false],
    ['a TTY with FORCE_COLOR=false', { isTTY: true }, { FORCE_COLOR: 'false' }, false],
    ['FORCE_COLOR=1 over NO_COLOR', { isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
  ])('decides colour for %s', (_label, stream, env, expected) => {
    expect(shouldUseColor(stream, env)).toBe(expected);
  });
});

describe('painter', () => {
  it('returns text unchanged when colour is off', () => {
    expect(painter(false)('red', 'x')).toBe('x');
  });

  it('wraps text in an ANSI colour and a reset when colour is on', () => {
    expect(painter(true)('red', 'x')).toBe('\u001b[31mx\u001b[0m');
    expect(painter(true)('red', '')).toBe('');
  });
});
