/**
 * Checks made on a YAML text before the full parser sees it: brackets nested
 * deeper than any config needs (the parser would overflow its stack and
 * report hundreds of errors), and an unquoted ${NAME} inside a flow
 * collection (where `{` starts a nested mapping, so the parser's message
 * speaks of tokens instead of the cause).
 */

/** Deeper than any config file needs ({ } and [ ] together), far below what overflows the parser. */
export const MAX_FLOW_DEPTH = 64;

/**
 * The offset of the first `[` or `{` nested deeper than `limit`, or -1.
 * Quoted scalars and comments are skipped; plain text is read as YAML would
 * read it closely enough for a limit this far above real configs.
 */
export function tooDeepOffset(text: string, limit = MAX_FLOW_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if ((ch === '"' || ch === "'") && opensScalar(text, i)) {
      i = quotedEnd(text, i);
    } else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (ch === '[' || ch === '{') {
      depth++;
      if (depth > limit) return i;
    } else if ((ch === ']' || ch === '}') && depth > 0) {
      depth--;
    }
  }
  return -1;
}

/** True when the character at `i` starts a scalar: first on its line or after `:`, `-`, `,`, `[`, `{`. */
function opensScalar(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < 0 || '\n:-,[{?'.includes(text[j]!);
}

/** The offset of the closing quote of the scalar that opens at `start` (or the text's end). */
function quotedEnd(text: string, start: number): number {
  const quote = text[start]!;
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return text.length;
}

/**
 * Offsets of unquoted `${` that follow `:`, `,`, `[` or `{` inside a flow
 * collection on the line containing `offset`; empty when there is none.
 */
export function flowVariableOffsets(text: string, offset: number): number[] {
  const start = text.lastIndexOf('\n', Math.max(0, offset - 1)) + 1;
  const endAt = text.indexOf('\n', offset);
  const line = text.slice(start, endAt === -1 ? text.length : endAt);
  if (!/[[{]/.test(line)) return [];
  const out: number[] = [];
  const pattern = /([:,[{]\s*)\$\{/g;
  for (let match = pattern.exec(line); match !== null; match = pattern.exec(line)) {
    const at = match.index + match[1]!.length;
    if (line.slice(0, at).includes('[') || line.slice(0, at).includes('{')) out.push(start + at);
  }
  return out;
}
