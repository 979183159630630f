import { kindOf, printable } from '../resources/index.js';
import { attributeDiff, attributeLines } from './attribute-lines.js';
import { painter, type Paint, type Style } from './color.js';
import type { Drift, DriftKind } from './drift.js';

/**
 * Drift for people: one block per resource that changed outside tenantform,
 * shared by the text and markdown renderers of a refreshed plan.
 */

const LABEL: Record<DriftKind, string> = {
  changed: 'changed',
  deleted: 'deleted',
  unmanaged: 'unmanaged',
};

const STYLE: Record<DriftKind, Style> = { changed: 'yellow', deleted: 'red', unmanaged: 'cyan' };

/** What the drift means and what the plan does about it, in one sentence. */
export function driftReason(d: Drift): string {
  switch (d.drift) {
    case 'changed':
      return `changed outside tenantform: ${d.fields.join(', ')}${d.desired ? '' : ' (no longer in the configuration)'}`;
    case 'deleted':
      return d.desired
        ? 'deleted outside tenantform; it is in the configuration, so it will be created again'
        : 'deleted outside tenantform; it is no longer in the configuration either, so it is only dropped from the state';
    case 'unmanaged':
      return d.desired
        ? 'on the tenant but not in the state; the configuration declares it, so it is recorded now (id and live settings) and managed from here on'
        : 'on the tenant but not managed by tenantform (not in the state); left alone';
  }
}

/** "1 changed, 1 deleted, 2 not managed" (only the kinds present), or "no drift". */
export function driftCounts(drift: readonly Drift[]): string {
  if (drift.length === 0) return 'no drift';
  const count = (k: DriftKind) => drift.filter((d) => d.drift === k).length;
  const parts: string[] = [];
  if (count('changed') > 0) parts.push(`${count('changed')} changed`);
  if (count('deleted') > 0) parts.push(`${count('deleted')} deleted`);
  if (count('unmanaged') > 0) parts.push(`${count('unmanaged')} not managed`);
  return parts.join(', ');
}

/** The heading of the drift section. */
export function driftHeading(drift: readonly Drift[]): string {
  return drift.length === 0
    ? 'Refreshed from the tenant: no drift, it matches the state.'
    : `Drift, read from the tenant: ${driftCounts(drift)}.`;
}

/** Diff-style value lines: recorded → live for a change, the values on one side otherwise. */
export function driftValueLines(d: Drift): string[] {
  if (d.recorded && d.live) {
    const lines: string[] = [];
    for (const hunk of attributeDiff(d.kind, d.recorded, d.live)) lines.push(hunk.header, ...hunk.lines);
    return lines;
  }
  const sign = d.drift === 'deleted' ? '-' : ' ';
  return attributeLines(d.kind, d.recorded ?? d.live ?? {}).map((line) => `${sign}${line}`);
}

const BODY = '      ';

/** One drift block for a terminal: label, kind, address, id; the values; the reason. */
export function driftBlock(d: Drift, paint: Paint): string {
  const id = d.id ? ` (id ${printable(d.id)})` : '';
  const head = `  ${paint(STYLE[d.drift], LABEL[d.drift].padEnd(9))} ${paint('bold', kindOf(d.kind).title.one)} ${printable(d.address)}${id}`;
  const values =
    d.drift === 'changed'
      ? driftValueLines(d).map((line) => {
          if (line.startsWith('@@')) return BODY + paint('cyan', line);
          const sign = line.slice(0, 1);
          const text = `${sign} ${line.slice(1)}`;
          return BODY + (sign === '-' ? paint('red', text) : sign === '+' ? paint('green', text) : text);
        })
      : [];
  return [head, ...values, BODY + paint('dim', `# ${printable(driftReason(d))}`)].join('\n');
}

/** The whole drift section for a terminal, ending with a blank line. */
export function driftText(drift: readonly Drift[], paint: Paint): string {
  const blocks = drift.map((d) => driftBlock(d, paint));
  return (
    [paint('bold', driftHeading(drift)), ...(blocks.length > 0 ? ['', ...blocks] : [])].join('\n') + '\n\n'
  );
}

/** The drift section alone (tenantform refresh), with ANSI colours when `color`. */
export function renderDriftText(drift: readonly Drift[], options: { color: boolean }): string {
  return driftText(drift, painter(options.color));
}
