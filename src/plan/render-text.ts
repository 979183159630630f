import { kindOf } from '../resources/index.js';
import { assertNever } from './actions.js';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import { painter, type Paint, type Style } from './color.js';
import { compactLine, compactNote, isCompact } from './render-compact.js';
import { driftText } from './render-drift.js';
import type { Change, Plan } from './types.js';
import {
  absenceNote,
  ACTION_STYLES,
  adoptedFlag,
  adoptedNote,
  legend,
  profileLine,
  scopeNote,
  summaryLine,
  SYMBOLS,
} from './wording.js';

export interface TextOptions {
  /** ANSI colours; decide with shouldUseColor(stream, env). */
  color: boolean;
  /** Also list unchanged resources (default false). */
  showNoOp?: boolean;
  /** Each change's attributes however many there are; without it, more than COMPACT_ABOVE are one line each. */
  verbose?: boolean;
}

const BODY = '      ';

function header(change: Change, paint: Paint): string {
  const symbol = paint(ACTION_STYLES[change.action], SYMBOLS[change.action].padStart(3));
  const title = kindOf(change.kind).title.one;
  const flag = change.adopted ? ` ${paint('yellow', adoptedFlag(change.kind))}` : '';
  return `${symbol} ${paint('bold', title)} ${change.address}${flag}`;
}

function signed(sign: string, lines: readonly string[], paint: Paint, style?: Style): string[] {
  return lines.map((line) => {
    const text = `${sign} ${line}`;
    return BODY + (style ? paint(style, text) : text);
  });
}

function diffLines(change: Change, paint: Paint): string[] {
  const out: string[] = [];
  for (const hunk of attributeDiff(change.kind, change.before ?? {}, change.after ?? {})) {
    out.push(BODY + paint('cyan', hunk.header));
    for (const line of hunk.lines) {
      const sign = line.slice(0, 1);
      const style: Style | undefined = sign === '-' ? 'red' : sign === '+' ? 'green' : undefined;
      out.push(...signed(sign, [line.slice(1)], paint, style));
    }
  }
  return out;
}

function body(change: Change, paint: Paint): string[] {
  switch (change.action) {
    case 'create':
      return signed('+', attributeLines(change.kind, change.after ?? {}), paint, 'green');
    case 'delete':
      return signed('-', attributeLines(change.kind, change.before ?? {}), paint, 'red');
    case 'update':
      return diffLines(change, paint);
    case 'replace': {
      // A forced replace (--replace) changes nothing: show what is created again.
      const diff = diffLines(change, paint);
      return diff.length > 0 ? diff : signed(' ', attributeLines(change.kind, change.after ?? {}), paint);
    }
    case 'blocked':
      if (change.before && change.after) return diffLines(change, paint);
      return signed(' ', attributeLines(change.kind, change.before ?? change.after ?? {}), paint);
    case 'forget':
      return signed(' ', attributeLines(change.kind, change.before ?? {}), paint);
    case 'no-op':
      return [];
    default:
      return assertNever(change.action);
  }
}

function block(change: Change, paint: Paint): string {
  const lines = [header(change, paint), ...body(change, paint), BODY + paint('dim', `# ${change.reason}`)];
  if (change.action === 'replace') {
    lines.push(BODY + paint('yellow', `# note: ${absenceNote(kindOf(change.kind).title.one)}`));
  }
  return lines.join('\n');
}

/**
 * The plan for a terminal or a log: a legend, one block per change (symbol,
 * kind, address, attributes or a unified diff, reason) or, for more than
 * COMPACT_ABOVE changes without `verbose`, one line each, and a summary line.
 * ANSI escapes appear only when `color` is true. Ends with a newline.
 */
export function renderText(plan: Plan, options: TextOptions): string {
  return [...renderTextChunks(plan, options)].join('');
}

/**
 * renderText in pieces (a section each, joined by blank lines), so that a
 * large plan can be written out without building one huge string.
 */
export function* renderTextChunks(plan: Plan, options: TextOptions): Generator<string> {
  const paint = painter(options.color);
  const shown = plan.changes.filter((c) => options.showNoOp === true || c.action !== 'no-op');
  const profile = profileLine(plan);
  if (profile) yield paint('bold', profile) + '\n\n';
  if (plan.drift) yield driftText(plan.drift, paint);
  if (shown.length > 0) {
    yield legend(new Set(shown.map((c) => c.action))) + '\n\n';
    if (isCompact(shown.length, options.verbose)) {
      yield paint('dim', compactNote(shown.length)) + '\n\n';
      for (const change of shown) yield compactLine(change, paint) + '\n';
      yield '\n';
    } else {
      for (const change of shown) yield block(change, paint) + '\n\n';
    }
  }
  const hiddenAdopted = options.showNoOp
    ? []
    : plan.changes.filter((c) => c.action === 'no-op' && c.adopted).map((c) => c.kind);
  const note = adoptedNote(hiddenAdopted);
  const scope = scopeNote(plan);
  const tail = [
    note ? paint('yellow', note) : null,
    scope ? paint('yellow', scope) : null,
    paint('bold', summaryLine(plan)),
  ].filter((line): line is string => line !== null);
  yield tail.join('\n') + '\n';
}
