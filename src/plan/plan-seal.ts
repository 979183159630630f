/**
 * The seal of a saved plan: an HMAC-SHA256 over the whole plan file (every
 * field but the seal, in a canonical JSON form: keys sorted, no spaces),
 * keyed by a secret kept with the state the plan was made from (never in the
 * plan). It shows that the file is what `tenantform plan --out` wrote: an
 * edit of any field, made by someone who cannot read that state's key,
 * breaks it. The key's fingerprint (not the key) is kept with the seal, so
 * that a plan sealed with another key is told apart from an edited one.
 *
 * Node's crypto is reached through process.getBuiltinModule, as in
 * src/state/random.ts: an ES import of node:crypto loads Web Crypto on every run.
 */
import type * as Crypto from 'node:crypto';
import { PlanError } from './errors.js';
import { setting, words } from '../resources/settings.js';

const crypto = (): typeof Crypto => process.getBuiltinModule('node:crypto');

export const SEAL_ALGORITHM = 'hmac-sha256';

/** The `seal` field of a saved plan. */
export interface PlanSeal {
  algorithm: typeof SEAL_ALGORITHM;
  /** The first 16 hex digits of SHA-256 of the key: which key sealed it, without revealing it. */
  key: string;
  /** The HMAC-SHA256, hex. */
  mac: string;
}

/** JSON with object keys sorted at every level and no spaces: the bytes a seal covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

function fingerprint(key: Uint8Array): string {
  return crypto().createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function mac(record: Record<string, unknown>, key: Uint8Array): string {
  const { seal: _seal, ...sealed } = record;
  return crypto().createHmac('sha256', key).update(canonicalJson(sealed)).digest('hex');
}

/** The seal of a plan file's JSON (its `seal` field, if any, left out). */
export function sealOf(record: Record<string, unknown>, key: Uint8Array): PlanSeal {
  return { algorithm: SEAL_ALGORITHM, key: fingerprint(key), mac: mac(record, key) };
}

/** The file's `seal` as a PlanSeal, or null when it has none of this shape. */
export function readSeal(value: unknown): PlanSeal | null {
  if (typeof value !== 'object' || value === null) return null;
  const seal = value as Record<string, unknown>;
  const ok =
    seal.algorithm === SEAL_ALGORITHM &&
    typeof seal.key === 'string' &&
    /^[0-9a-f]{16}$/.test(seal.key) &&
    typeof seal.mac === 'string' &&
    /^[0-9a-f]{64}$/.test(seal.mac) &&
    Object.keys(seal).length === 3;
  return ok ? (seal as unknown as PlanSeal) : null;
}

/**
 * Throws PlanError PLAN_TAMPERED unless `seal` is the seal of `record` under
 * `key`. `keyWhere` names where the key is kept, for the message.
 */
export function checkSeal(
  record: Record<string, unknown>,
  seal: PlanSeal,
  key: Uint8Array,
  fileName: string,
  keyWhere: string,
): void {
  if (seal.key !== fingerprint(key)) {
    throw new PlanError(
      words`${fileName} was sealed with another key than the plan key of its state (${keyWhere}): the key was replaced since the plan was saved, or the file was edited to name another state. Nothing was sent; make the plan again with tenantform plan ${setting('out')}.`,
      'PLAN_TAMPERED',
    );
  }
  const expected = Buffer.from(mac(record, key), 'hex');
  if (!crypto().timingSafeEqual(expected, Buffer.from(seal.mac, 'hex'))) {
    throw new PlanError(
      words`${fileName} was changed after tenantform plan ${setting('out')} sealed it: its seal does not match its content. Nothing was sent; a saved plan is applied only as it was written. Make the plan again with tenantform plan ${setting('out')}.`,
      'PLAN_TAMPERED',
    );
  }
}
