/**
 * Output streams for one environment of a multi-environment run: a buffer
 * (plan sections, printed whole and in order) and a line-prefixing stream
 * (apply progress, live). Neither is a terminal, so progress comes as one
 * line per operation and never as a redrawn live line.
 */
import type { OutputStream } from './io.js';

export interface EnvStream extends OutputStream {
  /** Writes out a last, unterminated line. */
  end(): void;
  /** Everything written, as text. */
  text(): string;
}

export function bufferStream(): EnvStream {
  const parts: string[] = [];
  return {
    isTTY: false,
    write: (chunk: string) => parts.push(chunk),
    end: () => undefined,
    text: () => parts.join(''),
  };
}

/** Writes each complete line to `sink` as "PREFIX line", and keeps the text. */
export function prefixedStream(prefix: string, sink: OutputStream): EnvStream {
  let pending = '';
  const parts: string[] = [];
  const emit = (lines: string[]) => {
    if (lines.length > 0)
      sink.write(lines.map((l) => (l === '' ? prefix.trimEnd() : `${prefix} ${l}`)).join('\n') + '\n');
  };
  return {
    isTTY: false,
    write(chunk: string) {
      parts.push(chunk);
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      emit(lines);
    },
    end() {
      if (pending !== '') emit([pending]);
      pending = '';
    },
    text: () => parts.join(''),
  };
}
