/** Test helpers for config tests: a marker "@@" in a YAML template names the position an issue must point at. */
import { combineParsedFiles } from '../src/config/combine.js';
import { parseConfigText } from '../src/config/parse-text.js';
import type { LoadResult, ParseContext } from '../src/config/types.js';

export interface Marked {
  text: string;
  line: number;
  col: number;
}

/** Removes the single "@@" from `template` and returns its 1-based line and column. */
export function marked(template: string): Marked {
  const index = template.indexOf('@@');
  if (index < 0 || template.indexOf('@@', index + 2) >= 0)
    throw new Error('template needs exactly one @@ marker');
  const text = template.slice(0, index) + template.slice(index + 2);
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const col = index - (before.lastIndexOf('\n') + 1) + 1;
  return { text, line, col };
}

/** Parses one text as the whole config, with cross-file checks. */
export function check(text: string, ctx: ParseContext = {}, file = 'config.yaml'): LoadResult {
  return combineParsedFiles([parseConfigText(text, file, ctx)]);
}

/** "line:col: message" lines, for readable assertions. */
export function lines(result: LoadResult): string[] {
  return result.issues.map((i) => `${i.line}:${i.col}: ${i.message}`);
}
