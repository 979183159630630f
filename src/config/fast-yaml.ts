/**
 * A fast reader for the plain subset of YAML that config files are written in:
 * block mappings and sequences, one-line flow mappings, plain, single- and
 * double-quoted scalars, comments. It returns the value and the position of
 * every sequence item, or null the moment it meets anything else (anchors,
 * aliases, tags, block scalars, several documents, escapes, variables,
 * booleans, floats, tabs, duplicate keys…). The caller then uses the full
 * YAML parser, which also reports every problem with its exact position.
 *
 * It must never accept text and produce a value the full parser would not:
 * plain scalars become numbers only when they are decimal integers (as in
 * YAML 1.2's core schema), and every other scalar that the core schema types
 * (null, true, 1.5, 0x1F, .inf …) makes it give up rather than guess. It
 * reads printable ASCII only: any other character (U+00A0, U+FEFF, U+2028,
 * control characters…) makes it give up, and it strips spaces only, never
 * what String.prototype.trim also strips, since YAML's white space is space and tab.
 */

export interface FastPosition {
  line: number;
  col: number;
}

export interface FastResult {
  value: unknown;
  /** For each sequence in the value: the line and column where each of its items starts. */
  itemPositions: WeakMap<unknown[], FastPosition[]>;
}

interface Line {
  indent: number;
  text: string;
  /** 1-based line number. */
  no: number;
}

class GiveUp extends Error {}

const KEY = /^([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?$/;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const DECIMAL = /^[-+]?[0-9]+$/;
const CORE_TYPED =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** Characters that give a plain scalar's first character a YAML meaning. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;
const MAX_DEPTH = 20;

function giveUp(): never {
  throw new GiveUp();
}

/** Anything but printable ASCII and line feeds: left to the full parser. */
const NOT_PLAIN_ASCII = /[^\n\x20-\x7e]/;

function trimSpacesStart(text: string): string {
  let i = 0;
  while (text.charCodeAt(i) === 0x20) i++;
  return text.slice(i);
}

function trimSpacesEnd(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return text.slice(0, end);
}

const trimSpaces = (text: string): string => trimSpacesEnd(trimSpacesStart(text));

/** Whatever follows a value on its line must be nothing or a comment. */
function expectEnd(rest: string): void {
  const tail = trimSpacesStart(rest);
  if (tail !== '' && (!tail.startsWith('#') || tail.length === rest.length)) giveUp();
}

function plainScalar(raw: string, flow: boolean): string | number {
  let text = raw;
  const comment = text.indexOf(' #');
  if (comment >= 0) text = text.slice(0, comment);
  text = trimSpacesEnd(text);
  if (
    text === '' ||
    INDICATOR.test(text) ||
    text.includes(': ') ||
    text.endsWith(':') ||
    text.includes('$')
  ) {
    giveUp();
  }
  if (text.includes('\t') || (flow && /[,[\]{}]/.test(text))) giveUp();
  if (DECIMAL.test(text)) {
    const n = Number(text);
    if (!Number.isSafeInteger(n)) giveUp();
    return n;
  }
  if (CORE_TYPED.test(text)) giveUp();
  return text;
}

function quotedScalar(rest: string): { value: string; after: string } {
  const quote = rest[0]!;
  if (quote === '"') {
    const end = rest.indexOf('"', 1);
    if (end < 0) giveUp();
    const value = rest.slice(1, end);
    if (value.includes('\\') || value.includes('$')) giveUp();
    return { value, after: rest.slice(end + 1) };
  }
  let value = '';
  let i = 1;
  for (;;) {
    const end = rest.indexOf("'", i);
    if (end < 0) giveUp();
    value += rest.slice(i, end);
    if (rest[end + 1] === "'") {
      value += "'";
      i = end + 2;
      continue;
    }
    if (value.includes('$')) giveUp();
    return { value, after: rest.slice(end + 1) };
  }
}

function flowMapping(rest: string): Record<string, unknown> {
  const close = rest.indexOf('}');
  if (close < 0) giveUp();
  const inner = rest.slice(1, close);
  expectEnd(rest.slice(close + 1));
  if (/["'[\]{}#]/.test(inner)) giveUp();
  const out: Record<string, unknown> = {};
  if (trimSpaces(inner) === '') return out;
  for (const part of inner.split(',')) {
    const match = KEY.exec(trimSpaces(part));
    if (!match || match[2] === undefined) giveUp();
    const key = match[1]!;
    if (FORBIDDEN.has(key) || Object.prototype.hasOwnProperty.call(out, key)) giveUp();
    out[key] = plainScalar(match[2], true);
  }
  return out;
}

function inlineValue(rest: string): unknown {
  if (rest.startsWith('{')) return flowMapping(rest);
  if (rest.startsWith('"') || rest.startsWith("'")) {
    const { value, after } = quotedScalar(rest);
    expectEnd(after);
    return value;
  }
  return plainScalar(rest, false);
}

class Reader {
  private pos = 0;
  readonly itemPositions = new WeakMap<unknown[], FastPosition[]>();

  constructor(private readonly lines: Line[]) {}

  get done(): boolean {
    return this.pos >= this.lines.length;
  }

  private peek(): Line | undefined {
    return this.lines[this.pos];
  }

  block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) giveUp();
    const line = this.peek()!;
    if (line.indent !== indent) giveUp();
    return line.text === '-' || line.text.startsWith('- ')
      ? this.sequence(indent, depth)
      : this.mapping(indent, depth);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      if (line.text.startsWith('-')) giveUp();
      const match = KEY.exec(line.text);
      if (!match) giveUp();
      const key = match[1]!;
      if (FORBIDDEN.has(key) || Object.prototype.hasOwnProperty.call(out, key)) giveUp();
      this.pos++;
      const rest = match[2];
      if (rest !== undefined && rest !== '' && !rest.startsWith('#')) {
        out[key] = inlineValue(rest);
        continue;
      }
      const next = this.peek();
      if (next && next.indent > indent) out[key] = this.block(next.indent, depth + 1);
      else if (next && next.indent === indent && (next.text === '-' || next.text.startsWith('- ')))
        out[key] = this.sequence(indent, depth + 1);
      else giveUp(); // an empty value: leave its typing (null) and its reporting to the full parser
    }
    const after = this.peek();
    if (after && after.indent > indent) giveUp();
    return out;
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    const positions: FastPosition[] = [];
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      if (!line.text.startsWith('- ')) break;
      const body = line.text.slice(2);
      const lead = body.length - trimSpacesStart(body).length;
      const rest = body.slice(lead);
      if (rest === '' || rest.startsWith('#') || rest.startsWith('-')) giveUp();
      const col = indent + 2 + lead;
      positions.push({ line: line.no, col: col + 1 });
      if (KEY.test(rest)) {
        // "- key: value": a mapping whose keys line up with this first one.
        this.lines[this.pos] = { indent: col, text: rest, no: line.no };
        out.push(this.mapping(col, depth + 1));
      } else {
        this.pos++;
        out.push(inlineValue(rest));
      }
    }
    const after = this.peek();
    if (after && after.indent > indent) giveUp();
    this.itemPositions.set(out, positions);
    return out;
  }
}

function splitLines(text: string): Line[] | null {
  const lines: Line[] = [];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!;
    const trimmed = trimSpacesStart(line);
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (line.includes('\t') || line.includes('\r')) return null;
    if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) return null;
    lines.push({ indent: line.length - trimmed.length, text: trimSpacesEnd(trimmed), no: i + 1 });
  }
  return lines;
}

/** The value of `text` with item positions, or null when it is not in the plain subset. */
export function parseFastYaml(text: string): FastResult | null {
  if (NOT_PLAIN_ASCII.test(text)) return null;
  const lines = splitLines(text);
  if (lines === null) return null;
  const reader = new Reader(lines);
  try {
    if (reader.done) return { value: null, itemPositions: reader.itemPositions };
    if (lines[0]!.indent !== 0) return null;
    const value = reader.block(0, 0);
    if (!reader.done) return null;
    return { value, itemPositions: reader.itemPositions };
  } catch (err) {
    if (err instanceof GiveUp) return null;
    throw err;
  }
}
