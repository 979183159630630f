/**
 * Counted words for the CLI's summaries: "1 file", "3 files", "2 rate limit
 * policies". One helper for every command's output.
 */
import type { Noun } from '../resources/index.js';

/** `n` and the word in the number `n` asks for: plural(1, 'file') → "1 file"; `many` defaults to one + "s". */
export function plural(n: number, one: string | Noun, many?: string): string {
  const noun = typeof one === 'string' ? { one, many: many ?? `${one}s` } : one;
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}

/** Items as a sentence lists them: "a", "a and b", "a, b and c" (or "a or b" with `or`). */
export function listed(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)!}`;
}
