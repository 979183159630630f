/**
 * What is wrong with text that JSON.parse refused, said without the text:
 * V8's messages quote the start of the input (`"password=h"...`), and a file
 * given by mistake (a key file, /etc/passwd) must never reach the terminal.
 */

/** One character as a message shows it: printable as itself, anything else as U+XXXX (a BOM named). */
function characterName(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0xfeff) return 'U+FEFF (a byte order mark)';
  if (code < 0x20 || (code >= 0x7f && code < 0xa0) || code > 0x7e) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${char}'`;
}

/** Line and column (1-based) of a character offset in `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line} column ${offset - before.lastIndexOf('\n')}`;
}

/**
 * The reason JSON.parse gave for refusing `text`, with where it stopped
 * (line and column) and never a quote of the text itself.
 */
export function jsonSyntaxProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const token = /^Unexpected token '([\s\S]+?)', "[\s\S]*"(?:\.\.\.)? is not valid JSON$/.exec(message);
  if (token) {
    const offset = text.indexOf(token[1]!.slice(0, 1));
    const where = offset >= 0 && /^\s*$/.test(text.slice(0, offset)) ? ` at ${lineColumn(text, offset)}` : '';
    return `unexpected character ${characterName(token[1]!)}${where}`;
  }
  if (/^Unexpected end of JSON input/.test(message))
    return text.trim() === '' ? 'it is empty' : 'it ends too early';
  const at = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/, "[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
    .slice(0, 120);
  return at ? `${reason} at ${lineColumn(text, Number(at[1]))}` : reason;
}
