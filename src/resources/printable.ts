/**
 * Text from outside the program made safe to print: a value read from the
 * tenant, a state, a Terraform state or a config can hold terminal escapes
 * (ESC [31m, ESC ]0;title BEL), C1 controls (U+009B, a CSI on some
 * terminals), line breaks that forge output lines, and bidi controls (U+202E)
 * that show text reversed. Every renderer of text and Markdown passes such
 * values through `printable`: each of those characters is shown as an escape
 * (\n, \r, \t, \u001b, \u202e), everything else as it is.
 */

/** C0 and C1 controls, DEL, the line and paragraph separators, and the bidi controls. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const ANY_UNPRINTABLE = new RegExp(UNPRINTABLE.source);

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(ch: string): string {
  return NAMED[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control, separator and bidi character shown as an escape; the same string when it has none. */
export function printable(text: string): string {
  return ANY_UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, escaped) : text;
}
