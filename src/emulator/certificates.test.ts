import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LocalAuthority, serverNames } from './certificates.js';

describe('LocalAuthority', () => {
  it('makes a CA that signs a server certificate for the loopback names', () => {
    const authority = new LocalAuthority(['127.0.0.1']);
    const ca = new X509Certificate(authority.caPem);
    const leaf = new X509Certificate(authority.issue('127.0.0.1').cert);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkHost('tenant.example.com')).toBeUndefined();
    expect(leaf.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(Date.parse(leaf.validFrom)).toBeLessThan(Date.now());
    expect(Date.parse(leaf.validTo)).toBeGreaterThan(Date.now() + 300 * 86_400_000);
  });

  it('adds the listening host to the names unless it is an any-address or a loopback name', () => {
    expect(serverNames('0.0.0.0')).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(serverNames('::')).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(serverNames('LOCALHOST')).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(serverNames('192.168.1.20')).toEqual(['localhost', '127.0.0.1', '::1', '192.168.1.20']);
    expect(serverNames('emulator.internal')).toEqual(['localhost', '127.0.0.1', '::1', 'emulator.internal']);
    const leaf = new X509Certificate(new LocalAuthority(['fe80::1']).issue('fe80::1').cert);
    expect(leaf.checkIP('fe80::1')).toBe('fe80::1');
  });

  it('writes the CA file on first retain and removes it when the last user releases it', () => {
    const authority = new LocalAuthority(['127.0.0.1']);
    expect(authority.caFile).toBeUndefined();
    const file = authority.retain();
    expect(authority.retain()).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(authority.caPem);
    authority.release();
    expect(existsSync(file)).toBe(true);
    authority.release();
    expect(existsSync(file)).toBe(false);
    expect(authority.caFile).toBeUndefined();
  });
});
