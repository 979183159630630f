import { describe, expect, it } from 'vitest';
import { printable } from './printable.js';

describe('printable', () => {
  it('escapes C0 and C1 controls, DEL, line breaks, separators and bidi controls', () => {
    expect(printable('a\u001b[31mred\u0007')).toBe('a\\u001b[31mred\\u0007');
    expect(printable('\u001b]0;title\u0007')).toBe('\\u001b]0;title\\u0007');
    expect(printable('line\nforged\r\tx')).toBe('line\\nforged\\r\\tx');
    expect(printable('\u009b31m\u007f')).toBe('\\u009b31m\\u007f');
    expect(printable('abc\u202Egpj.exe\u2066\u2069\u200f\u061c\u2028')).toBe(
      'abc\\u202egpj.exe\\u2066\\u2069\\u200f\\u061c\\u2028',
    );
  });

  it('leaves printable text as it is, other languages and emoji included', () => {
    for (const text of ['Partner App', 'Überweisung – 送金 ✓ 🎉', 'client_id:a|b`c', '']) {
      expect(printable(text)).toBe(text);
    }
  });
});
