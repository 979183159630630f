/**
 * Random ids and a hash. Node's crypto is reached through
 * process.getBuiltinModule instead of an import: importing node:crypto as an
 * ES module builds its module facade, which loads Web Crypto and more (about
 * 10 ms of every plan and apply, before anything is read). Even so, loading
 * it costs about 3 ms (some fifty internal modules), so what needs only to be
 * unique, not secret, does without it (uniqueId, uniqueHex).
 */
import type * as Crypto from 'node:crypto';

const crypto = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const randomUUID = (): string => crypto().randomUUID();

export const randomBytes = (size: number): Buffer => crypto().randomBytes(size);

export const createHash = (algorithm: string): Crypto.Hash => crypto().createHash(algorithm);

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** 32 bits from Math.random, mixed with `salt`. */
const word = (salt: number): number => (Math.random() * 0x1_0000_0000) ^ salt;

/**
 * `chars` (≤ 8) hex digits, different at each call of every process: for
 * names no two writers may share (temp files, which also carry the pid).
 * Math.random is seeded per process by V8 from the system's entropy; the
 * clock is mixed in for a node started with a fixed --random-seed.
 */
export function uniqueHex(chars: number): string {
  return hex8(word(Number(process.hrtime.bigint() & 0xffff_ffffn))).slice(8 - chars);
}

/**
 * An id in the form of a version 4 UUID that no other process makes: the
 * id of a lock, which names its holder to rivals who read it (no secret).
 * From Math.random mixed with the pid and the clock (see uniqueHex).
 */
export function uniqueId(): string {
  const now = process.hrtime.bigint();
  const a = hex8(word(process.pid));
  const b = hex8(word(Number(now & 0xffff_ffffn)));
  const c = hex8(word(Number((now >> 32n) & 0xffff_ffffn)));
  const d = hex8(word(0));
  const variant = ((parseInt(c[0]!, 16) & 0x3) | 0x8).toString(16);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
}
