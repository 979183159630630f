/**
 * Random ids and a hash from Node's crypto, reached through
 * process.getBuiltinModule instead of an import: importing node:crypto as an
 * ES module builds its module facade, which loads Web Crypto and more (about
 * 10 ms of every plan and apply, before anything is read). The state needs
 * only these three functions.
 */
import type * as Crypto from 'node:crypto';

const crypto = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const randomUUID = (): string => crypto().randomUUID();

export const randomBytes = (size: number): Buffer => crypto().randomBytes(size);

export const createHash = (algorithm: string): Crypto.Hash => crypto().createHash(algorithm);
