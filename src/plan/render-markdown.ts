import { kindOf } from '../resources/index.js';
import { attributeDiff } from './attribute-lines.js';
import type { Change, Plan } from './types.js';
import { absenceNote, adoptedFlag, adoptedNote, scopeNote, summaryLine, SYMBOLS } from './wording.js';

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
    escapeCell(kindOf(change.kind).title),
    codeCell(change.address),
    escapeCell(reason),
  ];
  return `| ${cells.join(' | ')} |`;
}

function details(change: Change): string {
  const lines: string[] = [];
  for (const hunk of attributeDiff(change.kind, change.before ?? {}, change.after ?? {})) {
    lines.push(hunk.header, ...hunk.lines.map((line) => `${line.slice(0, 1)} ${line.slice(1)}`));
  }
  const diff = lines.join('\n');
  const fence = fenceFor(diff);
  const note =
    change.action === 'replace' ? `\n\nNote: ${escapeHtml(absenceNote(kindOf(change.kind).title))}.` : '';
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

/**
 * The plan as GitHub-flavoured markdown for a pull request comment: heading,
 * summary, a table of changes and a collapsible diff per replacement or
 * blocked change. Never longer than MARKDOWN_LIMIT: when the plan is too big
 * the rest is left out with a note. Ends with a newline.
 */
export function renderMarkdown(plan: Plan): string {
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  const head: string[] = [plan.destroy ? '### tenantform destroy plan' : '### tenantform plan', ''];
  const scope = scopeNote(plan);
  if (scope) head.push(...scope.split('\n').map((line) => `> ${escapeHtml(line)}`), '');
  const adopted = adoptedNote(
    plan.changes.filter((c) => c.action === 'no-op' && c.adopted).map((c) => c.kind),
  );
  if (changes.length === 0) {
    head.push(summaryLine(plan));
    if (adopted) head.push('', adopted);
    return head.join('\n') + '\n';
  }
  head.push(`**${summaryLine(plan)}**`, '');
  if (adopted) head.push(adopted, '');
  head.push('| Action | Kind | Address | Reason |', '| --- | --- | --- | --- |');

  const out = [head.join('\n')];
  let size = out[0]!.length;
  const add = (text: string): boolean => {
    if (size + text.length + 1 > BUDGET) return false;
    out.push(text);
    size += text.length + 1;
    return true;
  };

  let rows = 0;
  while (rows < changes.length && add(row(changes[rows]!))) rows++;
  const diffs = changes.filter(
    (c) => c.before !== null && c.after !== null && attributeDiff(c.kind, c.before, c.after).length > 0,
  );
  let shownDiffs = 0;
  if (rows === changes.length && diffs.length > 0 && add('')) {
    while (shownDiffs < diffs.length && add(`${details(diffs[shownDiffs]!)}\n`)) shownDiffs++;
  }

  const left: string[] = [];
  if (rows < changes.length) left.push(`${changes.length - rows} more change(s)`);
  if (shownDiffs < diffs.length) left.push(`${diffs.length - shownDiffs} diff(s)`);
  if (left.length > 0) {
    out.push(
      '',
      `_The plan is too long for one comment: ${left.join(' and ')} not shown. Run \`tenantform plan\` to see all of it._`,
    );
  }
  return out.join('\n') + '\n';
}
