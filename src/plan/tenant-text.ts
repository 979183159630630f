/**
 * Tenant data in output: text the tenant holds (an application's name) may
 * carry control characters that would move a terminal's cursor, recolour it
 * or break a line of a table. Each is shown as an escape instead (`\n`,
 * `\x1b`, `\u202e`): the text stays readable and does nothing.
 *
 * A minimal one for the names in plans (issue 37); to be merged with the
 * renderers' shared escape of tenant data (issue 35) when that lands.
 */

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** C0 and C1 controls, DEL, and the bidirectional and line/paragraph separators that reorder or break text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character escaped. */
export function tenantText(text: string): string {
  return text.replace(CONTROL, (ch) => {
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
