import { kindOf, plainName, printable, type SettingNames } from '../resources/index.js';
import { effectWords, findingMessage } from '../review/index.js';
import { assertNever } from './actions.js';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import { painter, type Paint, type Style } from './color.js';
import { namesNote } from './names.js';
import { compactNote, isCompact } from './render-compact.js';
import { driftText } from './render-drift.js';
import { reasonText } from './reasons.js';
import {
  findingLine,
  reviewView,
  type ReviewedChange,
  type ReviewView,
  type ShownChange,
} from './review-view.js';
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
  /** How its notes name a setting (src/cli: by its flag); neutral names by default. */
  names?: SettingNames;
}

const BODY = '      ';

/** "  + rate limit policy default: new, block 100/s": symbol, kind, short name, the change in words. */
function header({ change, label, words }: ShownChange, paint: Paint): string {
  const symbol = paint(ACTION_STYLES[change.action], SYMBOLS[change.action].padStart(3));
  const title = kindOf(change.kind).title.one;
  const flag = change.adopted ? ` ${paint('yellow', adoptedFlag(change.kind))}` : '';
  return `${symbol} ${paint('bold', `${title} ${printable(label)}`)}: ${printable(words)}${flag}`;
}

/** The full address, then what the change does and what the guardrails found about it. */
function reviewLines({ change, review, plain }: ShownChange, paint: Paint): string[] {
  return [
    BODY + paint('dim', printable(change.address)),
    ...review.effects.map((e) => `${BODY}effect: ${effectWords(e)}`),
    ...plain.map((words) => `${BODY}effect: ${printable(words)}`),
    ...review.findings.map(
      (f) => BODY + paint('yellow', `warning: ${printable(findingMessage(f))} [${f.rule}]`),
    ),
  ];
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

/**
 * A change on one line, for a plan of more than COMPACT_ABOVE changes: its
 * header (symbol, kind, short name, the change in words) and, for a blocked
 * change, why (it stops apply).
 */
function compactLine(item: ShownChange, paint: Paint, names: SettingNames): string {
  const why =
    item.change.action === 'blocked' ? paint('dim', `  # ${printable(reasonText(item.change, names))}`) : '';
  return header(item, paint) + why;
}

function block(item: ShownChange, paint: Paint, names: SettingNames): string {
  const { change } = item;
  const lines = [
    header(item, paint),
    ...reviewLines(item, paint),
    ...body(change, paint),
    BODY + paint('dim', `# ${printable(reasonText(change, names))}`),
  ];
  if (change.action === 'replace') {
    lines.push(BODY + paint('yellow', `# note: ${absenceNote(kindOf(change.kind).title.one)}`));
  }
  return lines.join('\n');
}

/**
 * The plan for a terminal or a log: a legend, one block per change (symbol,
 * kind, short name and the change in words; address, effects, the
 * guardrails' warnings, attributes or a unified diff, reason), risky changes
 * first under "Review these (N):", then the guardrails' other warnings and a
 * summary line. Above COMPACT_ABOVE changes shown (unless `verbose`), the
 * changes that are not risky are one line each. ANSI escapes appear only when
 * `color` is true. Ends with a newline.
 */
export function renderText(plan: Plan, options: TextOptions): string {
  return [...renderTextChunks(plan, options)].join('');
}

/**
 * How the changes are listed: in blocks, or above COMPACT_ABOVE changes
 * shown (not verbose) one line each, said once before the first such list.
 * Risky changes keep their blocks unless they alone are more than that.
 */
function lister(view: ReviewView, shown: number, options: TextOptions, paint: Paint) {
  const { verbose, names = plainName } = options;
  const compact = isCompact(shown, verbose);
  let noted = false;
  // A line or block at a time, each change's words worked out as it is written (ReviewView.show).
  return function* list(items: readonly ReviewedChange[], areRisky: boolean): Generator<string> {
    if (!compact || (areRisky && !isCompact(view.risky.length, verbose))) {
      for (const item of items) yield block(view.show(item), paint, names) + '\n\n';
      return;
    }
    if (items.length === 0) return;
    if (!noted) yield paint('dim', compactNote(shown, names)) + '\n\n';
    noted = true;
    for (const item of items) yield compactLine(view.show(item), paint, names) + '\n';
    yield '\n';
  };
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
  const view = reviewView(plan, shown);
  const list = lister(view, shown.length, options, paint);
  if (shown.length > 0) {
    const actions = new Set<Change['action']>();
    for (const c of shown) actions.add(c.action);
    yield legend(actions) + '\n\n';
    if (view.risky.length > 0) {
      yield paint('bold', `Review these (${view.risky.length}):`) + '\n\n';
      yield* list(view.risky, true);
      if (view.others.length > 0) yield paint('bold', `Other changes (${view.others.length}):`) + '\n\n';
    }
    yield* list(view.others, false);
  }
  if (view.loose.length > 0) {
    const lines = view.loose.map((f) => `  ${findingLine(f)}`);
    yield paint('yellow', [`Warnings (${view.loose.length}):`, ...lines].join('\n')) + '\n\n';
  }
  const hiddenAdopted = options.showNoOp
    ? []
    : plan.changes.filter((c) => c.action === 'no-op' && c.adopted).map((c) => c.kind);
  const note = adoptedNote(hiddenAdopted);
  const scope = scopeNote(plan, options.names ?? plainName);
  const names = namesNote(plan);
  const tail = [
    note ? paint('yellow', note) : null,
    scope ? paint('yellow', scope) : null,
    names ? paint('dim', names) : null,
    paint('bold', summaryLine(plan)),
  ].filter((line): line is string => line !== null);
  yield tail.join('\n') + '\n';
}
