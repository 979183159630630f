/**
 * Reading a state file a piece at a time. A state of 100,000 resources is a
 * 26 MB text: read whole, the text (and the bytes it was decoded from) would
 * sit beside the parsed document, and survive it in the heap until the next
 * full garbage collection. Here the file is decoded a megabyte at a time
 * (strict UTF-8, as decodeStateBytes), and each element of the top-level
 * `resources` list is parsed as soon as its text is complete; the rest of
 * the document (a few fields) is parsed at the end, the list put back in it.
 *
 * The value is the one JSON.parse gives for the whole text. Anything this
 * does not follow (bytes that are not UTF-8, text that is not JSON, a second
 * `resources` key, a key written with escapes) makes it give up: the caller
 * then reads the file whole, which reports the problem exactly as before.
 */
import { open } from 'node:fs/promises';

/** Bytes read at once, and decoded at once: a decoded text of a megabyte or more would be held outside the heap (an external string) until a full collection. */
const READ_BYTES = 1 << 20;
const DECODE_BYTES = 1 << 16;

const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

class GiveUp extends Error {}

/** Called on each element of the `resources` list as soon as it is parsed (see readStateValue). */
export type EachElement = (element: unknown) => void;

const nothing: EachElement = () => undefined;

/**
 * Splits the text of a JSON object, fed in pieces, into the elements of its
 * `resources` list (parsed a piece's worth at a time: the complete elements
 * of each piece in one JSON.parse) and the rest of the text, where the list
 * stays as `[]`.
 */
class ResourceSplitter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A string at depth 1 (a key, or a top-level value) being read, from tokenFrom of the current piece. */
  private token: string[] | null = null;
  private tokenFrom = 0;
  private lastString: string | null = null;
  private key: string | null = null;
  private inList = false;
  private listsSeen = 0;
  /** Commas between the list's elements: a list of n elements has n - 1. */
  private separators = 0;
  private readonly rest: string[] = [];
  /** The list's text not parsed yet: from after the last comma parsed up to. */
  private pending: string[] = [];
  readonly resources: unknown[] = [];
  /** With stopAtList, the text of the piece after the list's `[`, once it opened. */
  remainder: string | null = null;

  /** `stopAtList`: stop reading at the list's `[` (the document's start, for FastList). */
  constructor(
    private readonly each: EachElement = nothing,
    private readonly stopAtList = false,
  ) {}

  /** The text read, up to the list's `[` when stopAtList stopped there. */
  get head(): string {
    return this.rest.join('');
  }

  feed(text: string): void {
    let from = 0;
    let lastComma = -1; // the list's last comma in this piece
    let backslash = -1; // the next backslash at or after i, found on first need
    for (let i = 0; i < text.length; i++) {
      if (this.inString) {
        // Skip to the string's end: its closing quote, unless a backslash comes first.
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (backslash < i && backslash !== Infinity) {
          backslash = text.indexOf('\\', i);
          if (backslash === -1) backslash = Infinity;
        }
        const quote = text.indexOf('"', i);
        if (backslash < (quote === -1 ? text.length : quote)) {
          i = backslash;
          this.escaped = true;
        } else if (quote === -1) i = text.length;
        else this.closeString(text, (i = quote));
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) this.openString(i);
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth === 2 && c === OPEN_BRACKET && this.key === 'resources') {
          if (++this.listsSeen > 1) throw new GiveUp();
          this.rest.push(text.slice(from, i + 1));
          this.inList = true;
          from = i + 1;
          if (this.stopAtList) {
            this.remainder = text.slice(from);
            return;
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--this.depth === 1 && this.inList) {
          if (c !== CLOSE_BRACKET) throw new GiveUp();
          this.pending.push(text.slice(from, i));
          this.parsePending(true);
          this.inList = false;
          lastComma = -1;
          from = i;
        }
      } else if (c === COMMA) {
        if (this.depth === 1) this.key = null;
        else if (this.depth === 2 && this.inList) {
          this.separators++;
          lastComma = i;
        }
      } else if (c === COLON && this.depth === 1) this.key = this.lastString;
    }
    if (this.inList && lastComma >= 0) {
      this.pending.push(text.slice(from, lastComma));
      this.parsePending(false);
      from = lastComma + 1;
    }
    if (text.length > from) (this.inList ? this.pending : this.rest).push(text.slice(from));
    if (this.token) this.token.push(text.slice(this.tokenFrom));
    this.tokenFrom = 0;
  }

  /** The document's value, with the list's elements put back; GiveUp when the text did not end as JSON. */
  finish(): unknown {
    if (this.inString || this.depth !== 0 || this.inList) throw new GiveUp();
    const value: unknown = JSON.parse(this.rest.join(''));
    if (this.listsSeen === 1) (value as { resources: unknown[] }).resources = this.resources;
    return value;
  }

  private openString(i: number): void {
    this.inString = true;
    if (this.depth === 1) {
      this.token = [];
      this.tokenFrom = i + 1;
    }
  }

  private closeString(text: string, i: number): void {
    this.inString = false;
    if (!this.token) return;
    this.token.push(text.slice(this.tokenFrom, i));
    this.lastString = this.token.join('');
    this.token = null;
  }

  /**
   * Parses the pending elements (up to a comma, or to the list's end) as one
   * list. An empty text parses as no element: the count of elements against
   * the commas at the list's end tells an empty list from a missing element.
   */
  private parsePending(end: boolean): void {
    const text = this.pending.join('');
    this.pending = [];
    let parsed: unknown[];
    try {
      parsed = JSON.parse(`[${text}]`) as unknown[];
    } catch {
      throw new GiveUp();
    }
    for (const element of parsed) {
      this.each(element);
      this.resources.push(element);
    }
    const expected = this.resources.length === 0 && this.separators === 0 ? 0 : this.separators + 1;
    if (end && this.resources.length !== expected) throw new GiveUp();
  }
}

/**
 * The list's elements when the file is laid out as tenantform writes it
 * (JSON.stringify with an indent: each element on lines of its own, at one
 * indentation). A line break is never inside a JSON string, so a line of
 * that indentation and `},` can only end an element: the text up to it is
 * parsed as a list (JSON.parse checks that it is one of whole elements) and
 * the text after it kept. What is left at the end (the last element, the
 * list's end, the rest of the document) is read by a ResourceSplitter, after
 * the document's start. A file laid out otherwise is all left to that.
 */
class FastList {
  private readonly separator: string;
  private pending: string[] = [];
  readonly elements: unknown[] = [];

  constructor(
    indent: string,
    private readonly each: EachElement,
  ) {
    this.separator = `\n${indent}},`;
  }

  feed(text: string): void {
    const at = text.lastIndexOf(this.separator);
    if (at < 0) {
      this.pending.push(text);
      return;
    }
    this.pending.push(text.slice(0, at + this.separator.length - 1));
    const parsed = JSON.parse(`[${this.pending.join('')}]`) as unknown[];
    for (const element of parsed) {
      this.each(element);
      this.elements.push(element);
    }
    this.pending = [text.slice(at + this.separator.length)];
  }

  /** The document's value: its start, then what was not parsed yet, with the elements put first. */
  finish(head: string): unknown {
    const rest = new ResourceSplitter(this.each);
    rest.feed(head + this.pending.join(''));
    const value = rest.finish() as { resources: unknown[] };
    // The last element follows the last comma parsed up to: none there is a trailing comma.
    if (this.elements.length > 0 && value.resources.length === 0) throw new GiveUp();
    // The elements read so far, and the rest after them: no third list of them all.
    for (const element of value.resources) this.elements.push(element);
    value.resources = this.elements;
    return value;
  }
}

/** The indentation of the list's first element when it starts a line of its own, as tenantform writes it. */
function firstIndent(text: string): string | null {
  return /^\n( *)\{/.exec(text)?.[1] ?? null;
}

/** Reads the decoded pieces of a state file: see the top of this file. */
class StateReader {
  private readonly head: ResourceSplitter;
  /** Once the list opened: the fast way when the file is laid out for it, else the whole splitter. */
  private list: FastList | ResourceSplitter | null = null;

  constructor(private readonly each: EachElement) {
    this.head = new ResourceSplitter(each, true);
  }

  feed(text: string): void {
    if (this.list) return this.list.feed(text);
    this.head.feed(text);
    const remainder = this.head.remainder;
    if (remainder === null) return;
    const indent = firstIndent(remainder);
    if (indent !== null) this.list = new FastList(indent, this.each);
    else {
      this.list = new ResourceSplitter(this.each);
      this.list.feed(this.head.head);
    }
    this.list.feed(remainder);
  }

  finish(): unknown {
    if (this.list instanceof FastList) return this.list.finish(this.head.head);
    return (this.list ?? this.head).finish();
  }
}

/**
 * The parsed value of the state file at `path` (see the top of this file),
 * null when there is no file, or undefined when it must be read whole.
 * `each` is called on every element of the `resources` list, in order, as
 * soon as it is parsed (and before the value is complete): what it changes
 * there, it changes while the element is young, before most of it has
 * outlived a scavenge.
 */
export async function readStateValue(path: string, each: EachElement = nothing): Promise<unknown> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return undefined; // missing or unreadable: the whole read says which
  }
  try {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const splitter = new StateReader(each);
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) break;
      for (let at = 0; at < bytesRead; at += DECODE_BYTES) {
        const bytes = buffer.subarray(at, Math.min(at + DECODE_BYTES, bytesRead));
        splitter.feed(decoder.decode(bytes, { stream: true }));
      }
    }
    splitter.feed(decoder.decode());
    return splitter.finish();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
