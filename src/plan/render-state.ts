import { kindOf, printable } from '../resources/index.js';
import type { RecordedResource } from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import { attributeLines } from './attribute-lines.js';
import { codeCell, escapeCell } from './render-markdown.js';

/**
 * The recorded state for people (`tenantform show` without a plan file): every
 * resource with its id, flags and attributes, in text or markdown. The JSON
 * form is the state document itself.
 */

const EMPTY = 'No resources recorded.';

function notes(r: RecordedResource): string[] {
  return [
    r.id ? `id ${r.id}` : kindOf(r.kind).id !== null ? 'no id' : '',
    r.adopted ? 'adopted: settings not verified' : '',
    r.created_at ? `created ${r.created_at}` : '',
  ].filter(Boolean);
}

function describe(doc: StateDocument | null): string {
  return doc
    ? `State serial ${doc.serial} (lineage ${doc.lineage}): ${doc.resources.length} resource(s).`
    : EMPTY;
}

/** Text: a block per resource (address, id and flags, attribute lines), then a count. Ends with a newline. */
export function renderStateText(doc: StateDocument | null): string {
  if (!doc || doc.resources.length === 0) return `${EMPTY}\n`;
  const blocks = doc.resources.map((r) => {
    const flags = notes(r);
    const head = printable(`${r.address}${flags.length ? `  (${flags.join('; ')})` : ''}`);
    return [head, ...attributeLines(r.kind, r.attributes).map((line) => `    ${line}`)].join('\n');
  });
  return `${blocks.join('\n\n')}\n\n${describe(doc)}\n`;
}

/** Markdown: a table of resources with their attributes in a code span. Ends with a newline. */
export function renderStateMarkdown(doc: StateDocument | null): string {
  const head = ['### tenantform state', ''];
  if (!doc || doc.resources.length === 0) return [...head, EMPTY].join('\n') + '\n';
  const rows = doc.resources.map((r) => {
    const attributes = attributeLines(r.kind, r.attributes)
      .map((line) => line.trim())
      .join('; ');
    return `| ${escapeCell(kindOf(r.kind).title.one)} | ${codeCell(r.address)} | ${escapeCell(notes(r).join('; ') || '-')} | ${codeCell(attributes)} |`;
  });
  return (
    [
      ...head,
      describe(doc),
      '',
      '| Kind | Address | Recorded | Attributes |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n') + '\n'
  );
}
