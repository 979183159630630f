// Only the module that makes patches: the package index loads every kind of diff (about 20 modules).
import { structuredPatch } from 'diff/lib/patch/create.js';
import { kindOf, printable, type Attributes, type KindName } from '../resources/index.js';
import { canonicalKeys } from './canonical.js';

/**
 * Attributes as YAML-like lines for people: identity fields first, other keys
 * sorted, strings JSON-quoted so that every value reads unambiguously.
 * Shared by the text and markdown renderers.
 */

/** Attribute names are few and repeat in every block of a plan: each is worked out once. */
const keyText = new Map<string, string>();

function key(name: string): string {
  let text = keyText.get(name);
  if (text === undefined) {
    text = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : printable(JSON.stringify(name));
    keyText.set(name, text);
  }
  return text;
}

function scalar(value: unknown): string {
  if (value === undefined) return 'null';
  // JSON escapes C0 controls; printable also the C1 and bidi ones it leaves as they are.
  return printable(JSON.stringify(value) ?? String(value));
}

type JsonObject = Record<string, unknown>;

/** An object with at least one defined value, or a non-empty array: shown on lines of its own. */
function isNested(value: unknown): value is object {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value !== 'object' || value === null) return false;
  for (const k in value) if (Object.hasOwn(value, k) && (value as JsonObject)[k] !== undefined) return true;
  return false;
}

function emptyOrScalar(value: unknown): string {
  if (Array.isArray(value)) return '[]';
  if (typeof value === 'object' && value !== null) return '{}';
  return scalar(value);
}

/** Lines of `value`, its keys in canonical order (`first` at the top level): no sorted copy is made. */
function pushValue(out: string[], value: unknown, indent: string, first: readonly string[] = []): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isNested(item)) {
        const inner: string[] = [];
        pushValue(inner, item, `${indent}  `);
        const [head, ...rest] = inner;
        out.push(`${indent}- ${(head ?? '').trimStart()}`, ...rest);
      } else {
        out.push(`${indent}- ${emptyOrScalar(item)}`);
      }
    }
    return;
  }
  const object = value as JsonObject;
  for (const name of canonicalKeys(object, first)) {
    const item = object[name];
    if (isNested(item)) {
      out.push(`${indent}${key(name)}:`);
      pushValue(out, item, `${indent}  `);
    } else {
      out.push(`${indent}${key(name)}: ${emptyOrScalar(item)}`);
    }
  }
}

/** The attributes of a resource as lines, in display order (no trailing newline on any line). */
export function attributeLines(kind: KindName, attributes: Attributes): string[] {
  const out: string[] = [];
  pushValue(out, attributes, '', kindOf(kind).identityFields);
  return out;
}

/** One hunk of a unified diff: its header and lines, each starting with ' ', '-' or '+'. */
export interface DiffHunk {
  header: string;
  lines: string[];
}

/** The unified-diff hunks between two attribute sets (only hunks, no file headers). */
export function attributeDiff(kind: KindName, before: Attributes, after: Attributes): DiffHunk[] {
  const oldText = attributeLines(kind, before).join('\n') + '\n';
  const newText = attributeLines(kind, after).join('\n') + '\n';
  const patch = structuredPatch('before', 'after', oldText, newText, undefined, undefined, { context: 3 });
  return patch.hunks.map((hunk) => ({
    header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    lines: hunk.lines.filter((line) => !line.startsWith('\\')),
  }));
}
