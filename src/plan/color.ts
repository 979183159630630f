/**
 * Terminal colours: ANSI escapes only when the caller asked for them. Whether
 * to ask is decided once, from the output stream and the environment.
 */

/**
 * Whether output to `stream` should be coloured. In order:
 * FORCE_COLOR set and not "0"/"false" → yes; FORCE_COLOR "0"/"false" → no;
 * NO_COLOR non-empty → no; TERM=dumb → no; otherwise yes only on a TTY.
 */
export function shouldUseColor(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force.toLowerCase() === 'false') return false;
    return true;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

const CODES = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
  boldRed: '1;31',
} as const;

export type Style = keyof typeof CODES;

/** A painter: wraps text in ANSI escapes when enabled, returns it unchanged otherwise. */
export type Paint = (style: Style, text: string) => string;

export function painter(color: boolean): Paint {
  if (!color) return (_style, text) => text;
  return (style, text) => (text === '' ? text : `\u001b[${CODES[style]}m${text}\u001b[0m`);
}
