/**
 * A throwaway certificate authority for `--tls`, in plain node:crypto (no
 * openssl, no dependency): at start an ECDSA P-256 CA certificate and a
 * server certificate it signs, both DER-encoded here. The CA's private key
 * lives in memory only and is dropped on stop, so the CA file handed to
 * clients (NODE_EXTRA_CA_CERTS) can never vouch for anything after that; its
 * name constraints limit it to the emulator's own names even meanwhile.
 *
 * Names in the server certificate: localhost, 127.0.0.1, ::1 and the host the
 * emulator listens on when it is another name or address.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// ---- DER ----

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
/** Context-specific constructed tag [n] (EXPLICIT, or IMPLICIT of a SEQUENCE). */
const explicit = (n: number, content: Buffer) => tlv(0xa0 + n, content);
/** Context-specific primitive tag [n] (IMPLICIT of a string type). */
const implicit = (n: number, content: Buffer) => tlv(0x80 + n, content);
const octets = (content: Buffer) => tlv(0x04, content);
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const bool = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));

function integer(content: Buffer): Buffer {
  let bytes = content;
  while (bytes.length > 1 && bytes[0] === 0 && bytes[1]! < 0x80) bytes = bytes.subarray(1);
  if (bytes[0]! >= 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

function bitString(content: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a! * 40 + b!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime (years before 2050) or GeneralizedTime, to the second. */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

// ---- X.509 ----

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  nameConstraints: '2.5.29.30',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const SIGNATURE_ALGORITHM = seq(oid(OID.ecdsaWithSha256));

function name(commonName: string): Buffer {
  return seq(
    set(seq(oid(OID.organization), utf8('tenantform emulator'))),
    set(seq(oid(OID.commonName), utf8(commonName))),
  );
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

/** A GeneralName for a host: dNSName [2] or iPAddress [7]. */
function hostName(host: string): Buffer {
  const ip = ipBytes(host);
  return ip ? implicit(7, ip) : implicit(2, Buffer.from(host, 'ascii'));
}

/** A name-constraint subtree for a host: the exact address (full mask) or the DNS name. */
function subtree(host: string): Buffer {
  const ip = ipBytes(host);
  return seq(ip ? implicit(7, Buffer.concat([ip, Buffer.alloc(ip.length, 0xff)])) : hostName(host));
}

function ipBytes(host: string): Buffer | undefined {
  const version = isIP(host);
  if (version === 4) return Buffer.from(host.split('.').map(Number));
  if (version !== 6) return undefined;
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const words = (part: string | undefined) => (part ? part.split(':') : []);
  let groups = words(head);
  const last = words(tail);
  if (tail !== undefined)
    groups = [...groups, ...Array<string>(8 - groups.length - last.length).fill('0'), ...last];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

interface KeyPair {
  privateKey: KeyObject;
  spki: Buffer;
  keyId: Buffer;
}

function keyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // The key identifier: SHA-1 of the public key bits (the last 65 bytes of a P-256 SPKI).
  const keyId = createHash('sha1')
    .update(spki.subarray(spki.length - 65))
    .digest();
  return { privateKey, spki, keyId };
}

function certificate(opts: {
  subject: Buffer;
  issuer: Buffer;
  subjectKey: KeyPair;
  signer: KeyPair;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}): Buffer {
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    SIGNATURE_ALGORITHM,
    opts.issuer,
    seq(time(opts.notBefore), time(opts.notAfter)),
    opts.subject,
    opts.subjectKey.spki,
    explicit(3, seq(...opts.extensions)),
  );
  const signature = sign('sha256', tbs, opts.signer.privateKey);
  return seq(tbs, SIGNATURE_ALGORITHM, bitString(signature));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The names a server certificate for `host` carries. */
export function serverNames(host: string): string[] {
  const names = ['localhost', '127.0.0.1', '::1'];
  const bare = host.replace(/^\[|\]$/g, '');
  const any = bare === '' || bare === '0.0.0.0' || bare === '::';
  if (!any && !names.includes(bare.toLowerCase())) names.push(bare.toLowerCase());
  return names;
}

export interface ServerCredentials {
  /** PEM of the server's private key. */
  key: string;
  /** PEM of the server certificate. */
  cert: string;
}

/**
 * A CA made at construction. `caFile` is written on first use by
 * `retain()` (each server using the CA retains it once and releases it on
 * stop); the file and its directory go when the last user releases it.
 */
export class LocalAuthority {
  readonly caPem: string;
  private readonly key: KeyPair;
  private readonly subject = name('tenantform emulator local CA');
  private readonly notBefore: Date;
  private readonly notAfter: Date;
  private readonly names: string[];
  private dir: string | undefined;
  private users = 0;

  /** `hosts`: the hosts servers of this CA listen on (their names are all the CA may vouch for). */
  constructor(hosts: readonly string[], now = Date.now()) {
    // An hour back allows for clocks a little behind ours; a year ahead outlives any run.
    this.notBefore = new Date(now - 3_600_000);
    this.notAfter = new Date(now + 365 * 86_400_000);
    this.names = [...new Set(hosts.flatMap(serverNames))];
    this.key = keyPair();
    const der = certificate({
      subject: this.subject,
      issuer: this.subject,
      subjectKey: this.key,
      signer: this.key,
      notBefore: this.notBefore,
      notAfter: this.notAfter,
      extensions: [
        extension(OID.basicConstraints, true, seq(bool(true), integer(Buffer.from([0])))),
        extension(OID.keyUsage, true, bitString(Buffer.from([0x06]), 1)), // keyCertSign, cRLSign
        extension(OID.subjectKeyId, false, octets(this.key.keyId)),
        extension(OID.nameConstraints, true, seq(explicit(0, Buffer.concat(this.names.map(subtree))))),
      ],
    });
    this.caPem = pem('CERTIFICATE', der);
  }

  /** Path of the CA certificate file, once retained. */
  get caFile(): string | undefined {
    return this.dir === undefined ? undefined : join(this.dir, 'ca.pem');
  }

  /** A server certificate for `host` (and the loopback names), signed by this CA. */
  issue(host: string): ServerCredentials {
    const names = serverNames(host);
    const key = keyPair();
    const der = certificate({
      subject: name(names.includes('localhost') ? 'localhost' : names[0]!),
      issuer: this.subject,
      subjectKey: key,
      signer: this.key,
      notBefore: this.notBefore,
      notAfter: this.notAfter,
      extensions: [
        extension(OID.basicConstraints, true, seq()),
        extension(OID.keyUsage, true, bitString(Buffer.from([0x80]), 7)), // digitalSignature
        extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
        extension(OID.subjectAltName, false, seq(...names.map(hostName))),
        extension(OID.subjectKeyId, false, octets(key.keyId)),
        extension(OID.authorityKeyId, false, seq(implicit(0, this.key.keyId))),
      ],
    });
    const keyPem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    return { key: keyPem, cert: pem('CERTIFICATE', der) };
  }

  /** Writes the CA file (mode 0644 in a fresh 0700 directory) if not yet written; returns its path. */
  retain(): string {
    if (this.dir === undefined) {
      this.dir = mkdtempSync(join(tmpdir(), 'tenantform-emulator-'));
      writeFileSync(join(this.dir, 'ca.pem'), this.caPem, { mode: 0o644 });
    }
    this.users += 1;
    return this.caFile!;
  }

  /** Removes the CA file when the last user lets go. */
  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0 || this.dir === undefined) return;
    rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
