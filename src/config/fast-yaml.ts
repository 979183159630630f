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

/**
 * The lines that carry content (blank and comment-only lines left out), as
 * offsets into the text: no string is made for a line, only for the keys and
 * values read from it. A line's content runs from `start` (after its
 * indentation) to `end` (before trailing spaces).
 */
interface Lines {
  count: number;
  indent: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** 1-based line number. */
  no: Int32Array;
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

const SPACE = 0x20;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;

/** Letters and underscore: what a key starts with. */
function isKeyStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

function isKeyChar(c: number): boolean {
  return isKeyStart(c) || (c >= 0x30 && c <= 0x39);
}

/**
 * Where the colon of `key:` or `key: value` is in text[s, e), or -1 when the
 * content is not a key (KEY, read without making strings).
 */
function keyColon(text: string, s: number, e: number): number {
  if (s >= e || !isKeyStart(text.charCodeAt(s))) return -1;
  let k = s + 1;
  while (k < e && isKeyChar(text.charCodeAt(k))) k++;
  if (k >= e || text.charCodeAt(k) !== COLON) return -1;
  if (k + 1 < e && text.charCodeAt(k + 1) !== SPACE) return -1;
  return k;
}

/** expectEnd for text[from, e): nothing, or spaces and a comment. */
function expectEndAt(text: string, from: number, e: number): void {
  let t = from;
  while (t < e && text.charCodeAt(t) === SPACE) t++;
  if (t < e && (text.charCodeAt(t) !== HASH || t === from)) giveUp();
}

/** A quoted scalar starting at text[s] and closed before e, with what follows it checked. */
function quotedAt(text: string, s: number, e: number): string {
  const quote = text[s]!;
  if (quote === '"') {
    const close = text.indexOf('"', s + 1);
    if (close < 0 || close >= e) giveUp();
    const value = text.slice(s + 1, close);
    if (value.includes('\\') || value.includes('$')) giveUp();
    expectEndAt(text, close + 1, e);
    return value;
  }
  let value = '';
  let i = s + 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close < 0 || close >= e) giveUp();
    value += text.slice(i, close);
    if (close + 1 < e && text.charCodeAt(close + 1) === 0x27) {
      value += "'";
      i = close + 2;
      continue;
    }
    if (value.includes('$')) giveUp();
    expectEndAt(text, close + 1, e);
    return value;
  }
}

function inlineValue(text: string, s: number, e: number): unknown {
  const c = text[s];
  if (c === '{') return flowMapping(text.slice(s, e));
  if (c === '"' || c === "'") return quotedAt(text, s, e);
  return plainScalar(text.slice(s, e), false);
}

class Reader {
  private pos = 0;
  readonly itemPositions = new WeakMap<unknown[], FastPosition[]>();

  constructor(
    private readonly text: string,
    private readonly lines: Lines,
  ) {}

  get done(): boolean {
    return this.pos >= this.lines.count;
  }

  /** The indentation of the current line, or -1 past the last one. */
  private indentHere(): number {
    return this.pos < this.lines.count ? this.lines.indent[this.pos]! : -1;
  }

  /** Whether the line at `i` is a sequence item: `-` alone or `- ` and more. */
  private isItem(i: number): boolean {
    const s = this.lines.start[i]!;
    const e = this.lines.end[i]!;
    return this.text.charCodeAt(s) === DASH && (e - s === 1 || this.text.charCodeAt(s + 1) === SPACE);
  }

  block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) giveUp();
    if (this.indentHere() !== indent) giveUp();
    return this.isItem(this.pos) ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const { text, lines } = this;
    const out: Record<string, unknown> = {};
    while (this.indentHere() === indent) {
      const s = lines.start[this.pos]!;
      const e = lines.end[this.pos]!;
      if (text.charCodeAt(s) === DASH) giveUp();
      const colon = keyColon(text, s, e);
      if (colon < 0) giveUp();
      const key = text.slice(s, colon);
      if (FORBIDDEN.has(key) || Object.prototype.hasOwnProperty.call(out, key)) giveUp();
      this.pos++;
      let r = colon + 1;
      while (r < e && text.charCodeAt(r) === SPACE) r++;
      if (r < e && text.charCodeAt(r) !== HASH) {
        out[key] = inlineValue(text, r, e);
        continue;
      }
      const next = this.indentHere();
      if (next > indent) out[key] = this.block(next, depth + 1);
      else if (next === indent && this.isItem(this.pos)) out[key] = this.sequence(indent, depth + 1);
      else giveUp(); // an empty value: leave its typing (null) and its reporting to the full parser
    }
    if (this.indentHere() > indent) giveUp();
    return out;
  }

  private sequence(indent: number, depth: number): unknown[] {
    const { text, lines } = this;
    const out: unknown[] = [];
    const positions: FastPosition[] = [];
    while (this.indentHere() === indent) {
      const s = lines.start[this.pos]!;
      const e = lines.end[this.pos]!;
      if (!(e - s >= 2 && text.charCodeAt(s) === DASH && text.charCodeAt(s + 1) === SPACE)) break;
      let r = s + 2;
      while (r < e && text.charCodeAt(r) === SPACE) r++;
      const first = text.charCodeAt(r);
      if (r >= e || first === HASH || first === DASH) giveUp();
      const col = indent + (r - s);
      positions.push({ line: lines.no[this.pos]!, col: col + 1 });
      if (keyColon(text, r, e) >= 0) {
        // "- key: value": a mapping whose keys line up with this first one.
        lines.indent[this.pos] = col;
        lines.start[this.pos] = r;
        out.push(this.mapping(col, depth + 1));
      } else {
        this.pos++;
        out.push(inlineValue(text, r, e));
      }
    }
    if (this.indentHere() > indent) giveUp();
    this.itemPositions.set(out, positions);
    return out;
  }
}

/** The content lines of `text`, or null when a line starts a document marker or directive. */
function splitLines(text: string): Lines | null {
  let capacity = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) capacity++;
  const lines: Lines = {
    count: 0,
    indent: new Int32Array(capacity),
    start: new Int32Array(capacity),
    end: new Int32Array(capacity),
    no: new Int32Array(capacity),
  };
  let no = 0;
  for (let from = 0; from <= text.length;) {
    let to = text.indexOf('\n', from);
    if (to === -1) to = text.length;
    no++;
    let s = from;
    while (s < to && text.charCodeAt(s) === SPACE) s++;
    if (s < to && text.charCodeAt(s) !== HASH) {
      if (s === from && (text.startsWith('---', s) || text.startsWith('...', s) || text[s] === '%')) {
        return null;
      }
      let e = to;
      while (e > s && text.charCodeAt(e - 1) === SPACE) e--;
      const n = lines.count++;
      lines.indent[n] = s - from;
      lines.start[n] = s;
      lines.end[n] = e;
      lines.no[n] = no;
    }
    from = to + 1;
  }
  return lines;
}

/** The value of `text` with item positions, or null when it is not in the plain subset. */
export function parseFastYaml(text: string): FastResult | null {
  // Tabs and carriage returns are among what this refuses: lines split on \n alone, indentation is spaces.
  if (NOT_PLAIN_ASCII.test(text)) return null;
  const lines = splitLines(text);
  if (lines === null) return null;
  const reader = new Reader(text, lines);
  try {
    if (reader.done) return { value: null, itemPositions: reader.itemPositions };
    if (lines.indent[0] !== 0) return null;
    const value = reader.block(0, 0);
    if (!reader.done) return null;
    return { value, itemPositions: reader.itemPositions };
  } catch (err) {
    if (err instanceof GiveUp) return null;
    throw err;
  }
}
