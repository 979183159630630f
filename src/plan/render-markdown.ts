import { kindOf } from '../resources/index.js';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import type { Drift } from './drift.js';
import { driftHeading, driftReason, driftValueLines } from './render-drift.js';
import type { Change, Plan } from './types.js';
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
  return text.replace(/[\\`*_[\]<>|~]/g, (ch) => `\\${ch}`).replace(/\r?\n/g, ' ');
}

/**
 * Text as a code span inside a GFM table cell: pipes escaped (the table splits on
 * them even inside code), the delimiter longer than any backtick run inside.
 */
export function codeCell(text: string): string {
  const body = text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fenceFor(body: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
}

function row(change: Change): string {
  const reason = change.adopted ? `${change.reason} ${adoptedFlag(change.kind)}` : change.reason;
  const cells = [
    `\`${SYMBOLS[change.action]}\` ${change.action}`,
    escapeCell(kindOf(change.kind).title.one),
    codeCell(change.address),
    escapeCell(reason),
  ];
  return `| ${cells.join(' | ')} |`;
}

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

function details(change: Change): string {
  const diff = valueLines(change).join('\n');
  const fence = fenceFor(diff);
  const note =
    change.action === 'replace' ? `\n\nNote: ${escapeHtml(absenceNote(kindOf(change.kind).title.one))}.` : '';
  return [
    `<details><summary>${escapeHtml(`${SYMBOLS[change.action]} ${change.address}`)}</summary>${note}`,
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
function driftMarkdown(drift: readonly Drift[]): string[] {
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
      `_${drift.length - shown} more drift entries not shown; run \`tenantform plan --refresh\` to see them all._`,
      '',
    );
  }
  if (blocks.length > 0) out.push(...blocks);
  return out;
}

/**
 * The plan as GitHub-flavoured markdown for a pull request comment: heading,
 * summary, a table of changes, then the values of each change in a
 * collapsible block (a diff for a replacement or a blocked change). Never
 * longer than MARKDOWN_LIMIT: when the plan is too big the rest is left out
 * with a note saying how much. Ends with a newline.
 */
export function renderMarkdown(plan: Plan): string {
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  const title = plan.destroy ? '### tenantform destroy plan' : '### tenantform plan';
  const profile = profileLine(plan);
  const head: string[] = [title, ''];
  if (profile) head.push(escapeHtml(profile), '');
  const scope = scopeNote(plan);
  if (scope) head.push(...scope.split('\n').map((line) => `> ${escapeHtml(line)}`), '');
  const adopted = adoptedNote(
    plan.changes.filter((c) => c.action === 'no-op' && c.adopted).map((c) => c.kind),
  );
  if (plan.drift) head.push(...driftMarkdown(plan.drift));
  if (changes.length === 0) {
    head.push(summaryLine(plan));
    if (adopted) head.push('', adopted);
    return head.join('\n') + '\n';
  }
  head.push(`**${summaryLine(plan)}**`, '');
  if (adopted) head.push(adopted, '');
  const table = '| Action | Kind | Address | Reason |\n| --- | --- | --- | --- |';

  const out = [`${head.join('\n')}\n${table}`];
  let size = out[0]!.length;
  const add = (text: string): boolean => {
    if (size + text.length + 1 > BUDGET) return false;
    out.push(text);
    size += text.length + 1;
    return true;
  };

  let rows = 0;
  while (rows < changes.length && add(row(changes[rows]!))) rows++;
  let shownValues = 0;
  if (rows === changes.length && add('')) {
    while (shownValues < changes.length && add(`${details(changes[shownValues]!)}\n`)) shownValues++;
  }

  const left: string[] = [];
  if (rows < changes.length) left.push(`${changes.length - rows} more change(s)`);
  const hiddenValues = changes.length - shownValues;
  if (hiddenValues > 0) left.push(`the values of ${hiddenValues} change(s)`);
  if (left.length > 0) {
    // Said twice: above the table, where a reviewer starts, and where the text stops.
    const note = `**Truncated** to fit GitHub's comment limit (${MARKDOWN_LIMIT.toLocaleString('en-US')} characters): ${left.join(' and ')} not shown. Run \`tenantform plan\` to see the whole plan.`;
    out[0] = `${head.join('\n')}\n> ${note}\n\n${table}`;
    out.push('', `_${note}_`);
  }
  return out.join('\n') + '\n';
}
