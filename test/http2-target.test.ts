/**
 * A tenant that answers over HTTP/2: undici speaks it when a TLS server
 * offers it in ALPN. The CLI's bundle loads node:http2 only when undici first
 * connects with it (scripts/bundle.mjs, lazy-http2): here the built CLI
 * applies through an HTTP/2-only TLS front of the emulator, trusting its CA
 * by NODE_EXTRA_CA_CERTS alone.
 */
import { existsSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAuthority } from '../src/emulator/certificates.js';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { tempDir } from './helpers/cli.js';
import { applyOnePolicy, REPO } from './helpers/built-cli.js';

const built = existsSync(join(REPO, 'dist', 'bundle', 'cli.cjs'));
/** Headers a proxy does not pass on (HTTP/1.1 connection headers, HTTP/2 pseudo-headers are dropped apart). */
const NOT_PASSED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

let emulator: EmulatorHandle;
let authority: LocalAuthority;
let front: Http2SecureServer;
let versions: string[];
let dir: string;
let cleanup: () => void;

async function bodyOf(req: Http2ServerRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeEach(async () => {
  emulator = await startEmulator({});
  authority = new LocalAuthority(['127.0.0.1']);
  versions = [];
  const origin = new URL(emulator.baseUrl).origin;
  front = createSecureServer({ ...authority.issue('127.0.0.1'), allowHTTP1: false }, (req, res) => {
    versions.push(req.httpVersion);
    void (async () => {
      const body = await bodyOf(req);
      const headers = Object.entries(req.headers).filter(
        ([name]) => !name.startsWith(':') && !NOT_PASSED.has(name),
      ) as [string, string][];
      const answer = await fetch(origin + req.url, {
        method: req.method,
        headers: headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const passed = [...answer.headers].filter(([name]) => !NOT_PASSED.has(name));
      res.writeHead(answer.status, Object.fromEntries(passed));
      res.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await new Promise((done) => front.close(done));
  authority.release();
  await emulator.stop();
  cleanup();
});

describe.skipIf(!built)('a tenant answering over HTTP/2', () => {
  it('is applied to by the built CLI, every request over HTTP/2', async () => {
    const domain = `127.0.0.1:${(front.address() as AddressInfo).port}`;
    const run = await applyOnePolicy(dir, domain, {
      NODE_EXTRA_CA_CERTS: authority.retain(),
      TENANTFORM_TOKEN: emulator.token,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(emulator.snapshot().rateLimitPolicies).toHaveLength(1);
    expect(versions.length).toBeGreaterThanOrEqual(1);
    expect(new Set(versions)).toEqual(new Set(['2.0']));
  });
});
