/**
 * Config files from resources read on the tenant (`tenantform export`): one
 * file per kind, in the canonical layout of `tenantform fmt`, each starting
 * with the yaml-language-server `$schema` comment. Pure: text out, the CLI
 * writes it. What these files declare is exactly what was read, so a plan
 * right after (with the export recorded in the state) has nothing to do.
 */
import { formatConfigData } from './format.js';
import { KINDS, type Attributes, type Kind, type LiveResource } from '../resources/index.js';
import { DEFAULT_LIMITS } from './types.js';

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

/** Entries formatted together: small enough that a chunk's formatting costs the same whatever the export's size. */
const CHUNK = 500;

/**
 * Largest file export writes, leaving room under the config's limit for one
 * file (DEFAULT_LIMITS.maxFileBytes) for a later edit: a kind above it is
 * split across files.
 */
export const MAX_EXPORT_FILE_BYTES = Math.floor(DEFAULT_LIMITS.maxFileBytes * 0.8);

/**
 * The list items of `key` in the canonical layout, one text per entry (each
 * `  - …` with its continuation lines), formatted a chunk at a time so that
 * the export is linear in its size.
 */
function formattedItems(key: string, list: readonly unknown[]): string[] {
  const items: string[] = [];
  for (let start = 0; start < list.length; start += CHUNK) {
    const formatted = formatConfigData({ [key]: list.slice(start, start + CHUNK) });
    const body = formatted.slice(formatted.indexOf('\n') + 1); // after `key:`
    items.push(...body.split(/^(?= {2}- )/m).filter((item) => item !== ''));
  }
  return items;
}

/** `rate-limit-policies.yaml`, then `rate-limit-policies-2.yaml`, … */
function partName(file: string, part: number): string {
  return part === 1 ? file : file.replace(/(\.ya?ml)$/, `-${part}$1`);
}

/** Items grouped into parts of at most `maxBytes` with the head (an item larger than that alone in its part). */
function parts(items: readonly string[], counts: readonly number[], headBytes: number, maxBytes: number) {
  const out: { text: string[]; count: number }[] = [];
  let bytes = 0;
  items.forEach((item, i) => {
    const size = Buffer.byteLength(item);
    let last = out[out.length - 1];
    if (!last || bytes + size > maxBytes) {
      last = { text: [], count: 0 };
      out.push(last);
      bytes = headBytes;
    }
    last.text.push(item);
    last.count += counts[i]!;
    bytes += size;
  });
  return out;
}

/**
 * One config file per kind that has resources (none for a kind with none),
 * with `schemaPath` in the `$schema` comment (relative to the file); a kind
 * whose file would pass `maxBytes` is split across several (`-2`, `-3`, …
 * before the extension), each a whole config file.
 */
export function exportConfigFiles(
  resources: readonly LiveResource[],
  schemaPath: string,
  maxBytes = MAX_EXPORT_FILE_BYTES,
): ExportFile[] {
  const byKind = new Map<string, LiveResource[]>();
  for (const r of resources) {
    const list = byKind.get(r.kind);
    if (list) list.push(r);
    else byKind.set(r.kind, [r]);
  }
  const files: ExportFile[] = [];
  for (const kind of KINDS) {
    const mine = byKind.get(kind.name) ?? [];
    if (mine.length === 0) continue;
    const list = entries(kind, mine);
    const items = formattedItems(kind.config.key, list);
    const head = `# yaml-language-server: $schema=${schemaPath}\n${kind.config.key}:\n`;
    parts(items, countsPerEntry(kind, list), Buffer.byteLength(head), maxBytes).forEach((part, i) => {
      files.push({
        name: partName(kind.config.file, i + 1),
        text: head + part.text.join(''),
        count: part.count,
      });
    });
  }
  return files;
}

/** How many resources each entry declares: one, or a group's members. */
function countsPerEntry(kind: Kind, list: readonly unknown[]): number[] {
  const group = kind.config.group;
  if (!group) return list.map(() => 1);
  return list.map((entry) => ((entry as Record<string, unknown[]>)[group.list] ?? []).length);
}
