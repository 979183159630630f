/**
 * Minimal HS256 JSON Web Tokens: enough to sign the emulator's access tokens
 * and to check the ones it receives. Only HS256 is accepted ("none" and every
 * other algorithm are refused).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface AccessClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  scope: string;
  gty: string;
  azp: string;
}

export type VerifyResult =
  | { ok: true; claims: AccessClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'claims' };

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
const SEGMENT = /^[A-Za-z0-9_-]+$/;

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function mac(secret: string, input: string): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

export function signJwt(claims: AccessClaims, secret: string): string {
  const input = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${mac(secret, input).toString('base64url')}`;
}

function parseJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasClaimTypes(p: Record<string, unknown>): boolean {
  const audOk =
    typeof p.aud === 'string' || (Array.isArray(p.aud) && p.aud.every((a) => typeof a === 'string'));
  return (
    audOk &&
    ['iss', 'sub', 'scope', 'azp'].every((k) => typeof p[k] === 'string') &&
    typeof p.exp === 'number' &&
    typeof p.iat === 'number'
  );
}

/** Checks shape, algorithm, signature and expiry (against `nowSec`). Claims beyond types are the caller's. */
export function verifyJwt(token: string, secret: string, nowSec: number): VerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return { ok: false, reason: 'malformed' };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = parseJson(headerPart);
  const payload = parseJson(payloadPart);
  if (!isObject(header) || !isObject(payload)) return { ok: false, reason: 'malformed' };
  if (header.alg !== 'HS256') return { ok: false, reason: 'signature' };
  const expected = mac(secret, `${headerPart}.${payloadPart}`);
  const given = Buffer.from(signaturePart, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'signature' };
  }
  if (!hasClaimTypes(payload)) return { ok: false, reason: 'claims' };
  const claims = payload as unknown as AccessClaims;
  if (claims.exp <= nowSec) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}
