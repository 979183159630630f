import { kindOf, type SettingNames } from '../resources/index.js';
import type { Paint } from './color.js';
import { reasonText } from './reasons.js';
import type { Change } from './types.js';
import { ACTION_STYLES, adoptedFlag, SYMBOLS } from './wording.js';

/**
 * The compact text plan: above COMPACT_ABOVE changes, one line per change
 * (symbol, kind, address; a blocked change also says why, since it stops
 * apply), the attribute detail left to `--verbose`, Markdown and JSON.
 * Apart from the block renderer (render-text.ts), so that what a change's
 * line says can change without touching how many lines a plan takes.
 */

/** Plans with more changes than this are shown one line per change unless verbose. */
export const COMPACT_ABOVE = 50;

/** True when `shown` changes are rendered one line each. */
export function isCompact(shown: number, verbose: boolean | undefined): boolean {
  return verbose !== true && shown > COMPACT_ABOVE;
}

/** The sentence before the lines: why they are short, and where the detail is. */
export function compactNote(shown: number, names: SettingNames): string {
  const format = names('format');
  return `${shown} changes, one line each (more than ${COMPACT_ABOVE}): ${names('verbose')} shows every change's attributes; ${format} markdown and ${format} json always have them.`;
}

/** One change on one line: `  + rate limit policy rate_limit_policy["…"]`. */
export function compactLine(change: Change, paint: Paint, names: SettingNames): string {
  const symbol = paint(ACTION_STYLES[change.action], SYMBOLS[change.action].padStart(3));
  const flag = change.adopted ? ` ${paint('yellow', adoptedFlag(change.kind))}` : '';
  const why = change.action === 'blocked' ? paint('dim', `  # ${reasonText(change, names)}`) : '';
  return `${symbol} ${kindOf(change.kind).title.one} ${change.address}${flag}${why}`;
}
