import { kindOf, plainName, printable, type SettingNames } from '../resources/index.js';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import type { Drift } from './drift.js';
import { namesNote } from './names.js';
import { driftHeading, driftReason, driftValueLines } from './render-drift.js';
import { reasonText } from './reasons.js';
import type { Change, Plan } from './types.js';
import { effectWords, findingMessage, type Finding } from '../review/index.js';
import {
  findingLine,
  findingWhere,
  reviewView,
  type ReviewedChange,
  type ShownChange,
} from './review-view.js';
import {
  absenceNote,
  adoptedFlag,
  adoptedNote,
  profileLine,
  scopeNote,
  summaryLine,
  SYMBOLS,
} from './wording.js';

/** GitHub refuses comments longer than 65,536 characters; stay well below. */
export const MARKDOWN_LIMIT = 65_536;
const BUDGET = MARKDOWN_LIMIT - 1_536;

/** Text safe inside a GFM table cell: markdown punctuation escaped, one line. */
export function escapeCell(text: string): string {
  return printable(text).replace(/[\\`*_[\]<>|~]/g, (ch) => `\\${ch}`);
}

/**
 * Text as a code span inside a GFM table cell: pipes escaped (the table splits on
 * them even inside code), the delimiter longer than any backtick run inside.
 */
export function codeCell(text: string): string {
  const body = printable(text).replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

function escapeHtml(text: string): string {
  return printable(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function fenceFor(body: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
}

/** Labels longer than this are cut in table rows (the full address is in the details block). */
const LABEL_MAX = 28;

function shortLabel(label: string): string {
  return label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 4)}…` : label;
}

/**
 * A table row: the action, the kind, "`label`: the change in words", and
 * what it does, with the codes of the rules that warn about it (their
 * sentences are in its details block); the review table leaves out how
 * requests are counted, to keep its rows short.
 */
/** The short name in a cell: the tenant's name as text, the selector as code (`Mobile app (`client_id:Vb4n…`)`). */
function labelCell({ label, parts }: ShownChange): string {
  if (parts.lead === undefined && parts.others.length === 0) return codeCell(shortLabel(label));
  const head =
    parts.lead === undefined
      ? codeCell(shortLabel(parts.label))
      : `${escapeCell(parts.lead)} (${codeCell(shortLabel(parts.label))})`;
  return parts.others.length > 0 ? `${head} (${escapeCell(parts.others.join(', '))})` : head;
}

function row(shown: ShownChange, risky = false): string {
  const { change, words, review } = shown;
  const flag = change.adopted ? ` (${adoptedFlag(change.kind).slice(1, -1)})` : '';
  const effects = risky ? review.effects.filter((e) => e.code !== 'counter') : review.effects;
  const does = [
    ...effects.map((e) => escapeCell(effectWords(e))),
    ...shown.plain.map(escapeCell),
    ...review.findings.map((f) => `⚠ ${codeCell(f.rule)}`),
  ];
  // The action and the kind never wrap (a 900 px comment column would break them in two lines each).
  const cells = [
    `\`${SYMBOLS[change.action]}\`${NBSP}${change.action}`,
    escapeCell(kindOf(change.kind).title.one).replace(/ /g, NBSP),
    `${labelCell(shown)}: ${escapeCell(words + flag)}`,
    does.join('; '),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** A space at which a table cell must not wrap. */
const NBSP = '&nbsp;';

const TABLE = '| Action | Kind | Change | What it does |\n| --- | --- | --- | --- |';

/**
 * The values a reviewer approves, as diff lines: a unified diff when both
 * sides exist, otherwise every attribute marked with what happens to it
 * (`+` created, `-` deleted, ` ` forgotten or blocked: stays as it is).
 */
function valueLines(change: Change): string[] {
  if (change.before !== null && change.after !== null) {
    const lines: string[] = [];
    for (const hunk of attributeDiff(change.kind, change.before, change.after)) {
      lines.push(hunk.header, ...hunk.lines.map((line) => `${line.slice(0, 1)} ${line.slice(1)}`));
    }
    // A forced replace (--replace) changes nothing: show the values it creates again.
    if (lines.length > 0) return lines;
  }
  const sign = change.action === 'create' ? '+' : change.action === 'delete' ? '-' : ' ';
  return attributeLines(change.kind, change.after ?? change.before ?? {}).map((line) => `${sign} ${line}`);
}

/** The collapsed block of one change: its full address, why, the guardrails' sentences, its values. */
function details({ change, review, plain }: ShownChange, names: SettingNames): string {
  const diff = valueLines(change).join('\n');
  const fence = fenceFor(diff);
  const notes = [`Why: ${escapeHtml(reasonText(change, names))}.`];
  if (change.action === 'replace')
    notes.push(`Note: ${escapeHtml(absenceNote(kindOf(change.kind).title.one))}.`);
  const does = [...review.effects.map(effectWords), ...plain];
  if (does.length > 0) notes.push(`Does: ${escapeHtml(does.join('; '))}.`);
  for (const f of review.findings) notes.push(`⚠ ${escapeHtml(findingLine(f))}`);
  return [
    `<details><summary>${escapeHtml(`${SYMBOLS[change.action]} ${change.address}`)}</summary>`,
    '',
    notes.join('<br>\n'),
    '',
    `${fence}diff`,
    diff,
    fence,
    '',
    '</details>',
  ].join('\n');
}

/** At most this much of a comment goes to drift, so that the changes still fit. */
const DRIFT_BUDGET = 20_000;

/**
 * The drift section: heading, a table, and each change's recorded → live diff
 * in a collapsible block, cut (with a note) when it would pass DRIFT_BUDGET.
 */
function driftMarkdown(drift: readonly Drift[], names: SettingNames): string[] {
  const out = [`**${escapeCell(driftHeading(drift))}**`, ''];
  if (drift.length === 0) return out;
  const parts: string[] = ['| Drift | Kind | Address | What it means |\n| --- | --- | --- | --- |'];
  let size = parts[0]!.length;
  let shown = 0;
  for (const d of drift) {
    const cells = [
      d.drift,
      escapeCell(kindOf(d.kind).title.one),
      codeCell(d.address),
      escapeCell(driftReason(d)),
    ];
    const line = `| ${cells.join(' | ')} |`;
    if (size + line.length > DRIFT_BUDGET) break;
    parts.push(line);
    size += line.length + 1;
    shown++;
  }
  const blocks: string[] = [];
  for (const d of drift.slice(0, shown).filter((entry) => entry.drift === 'changed')) {
    const diff = driftValueLines(d)
      .map((line) => (line.startsWith('@@') ? line : `${line.slice(0, 1)} ${line.slice(1)}`))
      .join('\n');
    const fence = fenceFor(diff);
    const block = [
      `<details><summary>${escapeHtml(`changed outside tenantform: ${d.address}`)}</summary>`,
      '',
      `${fence}diff`,
      diff,
      fence,
      '',
      '</details>',
      '',
    ].join('\n');
    if (size + block.length > DRIFT_BUDGET) break;
    blocks.push(block);
    size += block.length + 1;
  }
  out.push(parts.join('\n'), '');
  if (shown < drift.length) {
    out.push(
      `_${drift.length - shown} more drift entries not shown; run \`tenantform plan ${names('refresh')}\` to see them all._`,
      '',
    );
  }
  if (blocks.length > 0) out.push(...blocks);
  return out;
}

/** The head of the comment: title, profile, scope, drift, summary, adopted note. */
function headLines(plan: Plan, changed: boolean, settingNames: SettingNames): string[] {
  const title = plan.destroy ? '### tenantform destroy plan' : '### tenantform plan';
  const profile = profileLine(plan);
  const head: string[] = [title, ''];
  if (profile) head.push(escapeHtml(profile), '');
  const scope = scopeNote(plan, settingNames);
  if (scope) head.push(...scope.split('\n').map((line) => `> ${escapeHtml(line)}`), '');
  const adopted = adoptedNote(
    plan.changes.filter((c) => c.action === 'no-op' && c.adopted).map((c) => c.kind),
  );
  if (plan.drift) head.push(...driftMarkdown(plan.drift, settingNames));
  head.push(changed ? `**${summaryLine(plan)}**` : summaryLine(plan));
  if (adopted) head.push('', adopted);
  const names = namesNote(plan);
  if (names) head.push('', `<sub>${escapeHtml(names)}</sub>`);
  return head;
}

/** The guardrails' findings about no shown change, as list items: "- ⚠ `rule` p.yaml:2:5: sentence". */
function looseLines(loose: readonly Finding[]): string[] {
  return loose.map((f) => {
    const where = findingWhere(f);
    return `- ⚠ ${codeCell(f.rule)}${where ? ` ${codeCell(where)}` : ''}: ${escapeCell(findingMessage(f))}`;
  });
}

/**
 * The plan as GitHub-flavoured markdown for a pull request comment, read in
 * a 900 px column: heading and summary; "Review these" first — the risky
 * changes (blocking, moving to enforcing, large limit cuts, those a
 * guardrail warns about) and the guardrails' other warnings; then a table of
 * the other changes, each row its short name, the change in words and what
 * it does; then each change's full address, reason and values in a
 * collapsible block (risky first). Never longer than MARKDOWN_LIMIT: when
 * the plan is too big the rest is left out with a note saying how much.
 * Ends with a newline.
 */
export function renderMarkdown(plan: Plan, names: SettingNames = plainName): string {
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  const view = reviewView(plan, changes);
  const head = headLines(plan, changes.length > 0, names);
  const loose = looseLines(view.loose);
  if (changes.length === 0) return [...head, ...(loose.length > 0 ? ['', ...loose] : [])].join('\n') + '\n';

  const out = [head.join('\n')];
  let size = out[0]!.length;
  let full = false;
  // Once something does not fit, nothing more is added: the note says what is left out.
  const add = (...lines: string[]): boolean => {
    const text = lines.join('\n');
    if (full || size + text.length + 1 > BUDGET) return !(full = true);
    out.push(text);
    size += text.length + 1;
    return true;
  };
  const table = (items: readonly ReviewedChange[], risky: boolean): number => {
    let rows = 0;
    if (items.length > 0 && add('', TABLE))
      while (rows < items.length && add(row(view.show(items[rows]!), risky))) rows++;
    return rows;
  };

  let rows = 0;
  if (view.risky.length > 0 || loose.length > 0) {
    add('', `#### Review these (${view.risky.length + loose.length})`);
    rows += table(view.risky, true);
    if (loose.length > 0) add('', ...loose);
    if (view.others.length > 0) add('', `#### Other changes (${view.others.length})`);
  }
  rows += table(view.others, false);
  const ordered = [...view.risky, ...view.others];
  let shownValues = 0;
  if (rows === ordered.length && add('')) {
    while (shownValues < ordered.length && add(`${details(view.show(ordered[shownValues]!), names)}\n`))
      shownValues++;
  }

  const left: string[] = [];
  if (rows < ordered.length) left.push(`${ordered.length - rows} more change(s)`);
  const hiddenValues = ordered.length - shownValues;
  if (hiddenValues > 0) left.push(`the values of ${hiddenValues} change(s)`);
  if (left.length > 0) {
    // Said twice: under the summary, where a reviewer starts, and where the text stops.
    const note = `**Truncated** to fit GitHub's comment limit (${MARKDOWN_LIMIT.toLocaleString('en-US')} characters): ${left.join(' and ')} not shown. Run \`tenantform plan\` to see the whole plan.`;
    out[0] = [...head, '', `> ${note}`].join('\n');
    out.push('', `_${note}_`);
  }
  return out.join('\n') + '\n';
}
