/**
 * Config files from resources read on the tenant (`tenantform export`): one
 * file per kind, in the canonical layout of `tenantform fmt`, each starting
 * with the yaml-language-server `$schema` comment. Pure: text out, the CLI
 * writes it. What these files declare is exactly what was read, so a plan
 * right after (with the export recorded in the state) has nothing to do.
 */
import { YAML } from './yaml-lib.js';
import { formatConfigText } from './format.js';
import { KINDS, type Attributes, type Kind, type LiveResource } from '../resources/index.js';

export interface ExportFile {
  /** File name inside the export directory. */
  name: string;
  text: string;
  /** Resources the file declares. */
  count: number;
}

const byAddress = (a: LiveResource, b: LiveResource): number =>
  a.address < b.address ? -1 : a.address > b.address ? 1 : 0;

/** A value as config text reads it back: `${` would start a variable reference, `$${` is a literal one. */
function literal(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('${', () => '$${');
  if (Array.isArray(value)) return value.map(literal);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  return value;
}

/** The config entries of one kind: attributes as they are, or for a grouped kind one entry per owner. */
function entries(kind: Kind, resources: readonly LiveResource[]): unknown[] {
  const sorted = [...resources].sort(byAddress);
  const group = kind.config.group;
  if (!group) return sorted.map((r) => literal(r.attributes));
  const byOwner = new Map<string, Attributes[]>();
  for (const r of sorted) {
    const { [group.by]: owner, ...member } = r.attributes;
    const list = byOwner.get(String(owner)) ?? [];
    list.push(member);
    byOwner.set(String(owner), list);
  }
  return [...byOwner].map(([owner, members]) => literal({ [group.by]: owner, [group.list]: members }));
}

/**
 * One config file per kind that has resources (none for a kind with none),
 * with `schemaPath` in the `$schema` comment (relative to the file).
 */
export function exportConfigFiles(resources: readonly LiveResource[], schemaPath: string): ExportFile[] {
  const files: ExportFile[] = [];
  for (const kind of KINDS) {
    const mine = resources.filter((r) => r.kind === kind.name);
    if (mine.length === 0) continue;
    const body = YAML.stringify({ [kind.config.key]: entries(kind, mine) }, { lineWidth: 0 });
    const text = `# yaml-language-server: $schema=${schemaPath}\n${body}`;
    const name = kind.config.file;
    const formatted = formatConfigText(text, name);
    if (formatted.issues.length > 0) {
      throw new Error(`internal: exported ${name} does not format: ${formatted.issues[0]!.message}`);
    }
    files.push({ name, text: formatted.text, count: mine.length });
  }
  return files;
}
