/** Strict UTF-8 decoding that can say where the first bad byte is. */

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence; -1 when all are valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) low = 0xa0;
      if (c === 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) low = 0x90;
      if (c === 0xf4) high = 0x8f;
    } else return i;
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return i;
    for (let k = 2; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return -1;
}

export type Decoded = { text: string } | { line: number; col: number; byte: number };

/** Decodes UTF-8 (a leading BOM is dropped); on invalid bytes, the 1-based line and column of the first one. */
export function decodeUtf8(bytes: Uint8Array): Decoded {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    const offset = Math.max(0, firstInvalidUtf8(bytes));
    const before = lenient.decode(bytes.subarray(0, offset));
    let line = 1;
    for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) line += 1;
    const col = before.length - (before.lastIndexOf('\n') + 1) + 1;
    return { line, col, byte: bytes[offset] ?? 0 };
  }
}
