/**
 * Start-up cost: modules that plan and apply must not load. A config file in
 * the plain subset that the fast reader takes is read without the YAML
 * library (dozens of modules); a file that needs the full parser loads it.
 * The plan renderer loads the diff package's patch module, not its index.
 * Runs the built dist/ in a fresh process, whose loaded modules are the evidence.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'tf-config-startup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PLAIN = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: "client_id:abc"
    configuration:
      action: block
      limit: 10
`;
// An anchor and an alias: only the full parser reads them.
const FULL = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: "client_id:abc"
    configuration: &conf
      action: block
      limit: 10
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: "client_id:def"
    configuration: *conf
`;

/** Loads `text` as a config file with dist's loadConfig in a new process. */
function loadInFreshProcess(name: string, text: string): { yamlLoaded: boolean; resources: number } {
  const file = join(work, name);
  writeFileSync(file, text);
  const config = pathToFileURL(join(ROOT, 'dist', 'config', 'index.js')).href;
  const script = [
    `import { createRequire } from 'node:module';`,
    `import { loadConfig } from ${JSON.stringify(config)};`,
    `const result = await loadConfig(${JSON.stringify(file)});`,
    `if (result.issues.length > 0) throw new Error(JSON.stringify(result.issues));`,
    `const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\\\/]node_modules[\\\\/]yaml[\\\\/]/.test(f));`,
    `console.log(JSON.stringify({ yamlLoaded: loaded, resources: result.desired.length }));`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as { yamlLoaded: boolean; resources: number };
}

describe('config start-up cost', () => {
  it('reads a plain-subset config without loading the YAML library', () => {
    expect(loadInFreshProcess('plain.yaml', PLAIN)).toEqual({ yamlLoaded: false, resources: 1 });
  });

  it('loads the YAML library when a file needs the full parser', () => {
    expect(loadInFreshProcess('full.yaml', FULL)).toEqual({ yamlLoaded: true, resources: 2 });
  });
});

describe('plan start-up cost', () => {
  it("renders a replace's diff without loading the diff package's index", () => {
    const plan = pathToFileURL(join(ROOT, 'dist', 'plan', 'index.js')).href;
    const script = [
      `import { registerHooks } from 'node:module';`,
      `const loaded = [];`,
      `registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });`,
      `const { planChanges, renderText } = await import(${JSON.stringify(plan)});`,
      `const policy = (limit) => ({ resource: 'oauth_authentication_api', consumer: 'client', consumer_selector: 'default', configuration: { action: 'block', limit } });`,
      `const address = 'rate_limit_policy["oauth_authentication_api","client","default"]';`,
      `const identity = ['oauth_authentication_api', 'client', 'default'];`,
      `const desired = [{ kind: 'rate_limit_policy', address, identity, attributes: policy(20) }];`,
      `const doc = { format_version: 1, lineage: 'l', serial: 1, resources: [{ kind: 'rate_limit_policy', address, identity, attributes: policy(10), id: 'rlp_1' }] };`,
      `const text = renderText(planChanges(desired, doc), { color: false });`,
      `const diff = loaded.filter((url) => url.includes('/node_modules/diff/'));`,
      `console.log(JSON.stringify({ diffShown: text.includes('-   limit: 10'), index: diff.some((url) => url.endsWith('/libesm/index.js')), modules: diff.length }));`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as { diffShown: boolean; index: boolean; modules: number };
    expect(seen).toMatchObject({ diffShown: true, index: false });
    expect(seen.modules).toBeGreaterThan(0);
  });
});

describe('state start-up cost', () => {
  it('opens no ES module facade of node:crypto (it loads Web Crypto), and still makes random ids', () => {
    const state = pathToFileURL(join(ROOT, 'dist', 'state', 'index.js')).href;
    const script = [
      `import { registerHooks } from 'node:module';`,
      `const loaded = [];`,
      `registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });`,
      `const { newLineage } = await import(${JSON.stringify(state)});`,
      `console.log(JSON.stringify({ crypto: loaded.includes('node:crypto'), lineage: newLineage() }));`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as { crypto: boolean; lineage: string };
    expect(seen.crypto).toBe(false);
    expect(seen.lineage).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('apply start-up cost', () => {
  /** Runs `body` (an ES module's text, after the imports it needs) in a new process; its last line of output, parsed. */
  function runScript(body: string[], env: Record<string, string> = {}): unknown {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', body.join('\n')], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout.trim().split('\n').pop()!);
  }

  const builtins = `const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);`;

  it('takes the state lock, writes and releases it without loading node:crypto', () => {
    const state = pathToFileURL(join(ROOT, 'dist', 'state', 'index.js')).href;
    const path = join(work, 'lock', 'state.json');
    const seen = runScript([
      `const { createFileStateStore, openState } = await import(${JSON.stringify(state)});`,
      builtins,
      `const store = createFileStateStore(${JSON.stringify(path)});`,
      `const session = await openState(store, { command: 'apply', lineage: () => 'l' });`,
      `const id = session.lock.id;`,
      `await store.write({ ...session.doc, serial: 1 }, null);`,
      `await session.release();`,
      `await store.close();`,
      `console.log(JSON.stringify({ crypto: loaded('crypto'), id }));`,
    ]) as { crypto: boolean; id: string };
    expect(seen.crypto).toBe(false);
    expect(seen.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('loads the question and the log reader without node:readline or node:zlib (an --auto-approve apply uses neither)', () => {
    const prompt = pathToFileURL(join(ROOT, 'dist', 'cli', 'prompt.js')).href;
    const simulate = pathToFileURL(join(ROOT, 'dist', 'simulate', 'index.js')).href;
    const seen = runScript([
      `await import(${JSON.stringify(prompt)});`,
      `await import(${JSON.stringify(simulate)});`,
      builtins,
      `console.log(JSON.stringify({ readline: loaded('readline'), promises: loaded('readline/promises'), zlib: loaded('zlib') }));`,
    ]);
    expect(seen).toEqual({ readline: false, promises: false, zlib: false });
  });

  it('sends over http:// without loading node:http2, node:tls or node:crypto', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const transport = pathToFileURL(join(ROOT, 'dist', 'api', 'transport.js')).href;
    try {
      const seen = await sendFromFreshProcess(transport, `http://127.0.0.1:${port}`);
      expect(seen).toEqual({ status: 200, body: 'plain', http2: false, tls: false, crypto: false });
    } finally {
      server.close();
    }
  });

  it('still speaks HTTP/2 to an https:// server that picks it, loading node:http2 then', async () => {
    const { createSecureServer } = await import('node:http2');
    const { LocalAuthority } = await import('../src/emulator/certificates.js');
    const authority = new LocalAuthority(['localhost']);
    const versions: string[] = [];
    const server = createSecureServer(authority.issue('localhost'), (req, res) => {
      versions.push(req.httpVersion);
      res.end('over h2');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const transport = pathToFileURL(join(ROOT, 'dist', 'api', 'transport.js')).href;
    const caFile = authority.retain();
    try {
      const seen = await sendFromFreshProcess(transport, `https://localhost:${port}`, {
        NODE_EXTRA_CA_CERTS: caFile,
      });
      expect(seen).toMatchObject({ status: 200, body: 'over h2', http2: true });
      expect(versions).toEqual(['2.0']);
    } finally {
      server.close();
      authority.release();
    }
  });
});

/**
 * Sends one GET to `origin` through dist's transport in a new process (run
 * asynchronously: the server answers from this one); what came back and
 * which builtins that process loaded.
 */
async function sendFromFreshProcess(transport: string, origin: string, env: Record<string, string> = {}) {
  const script = [
    `const { createAgent, sendOnce } = await import(${JSON.stringify(transport)});`,
    `const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);`,
    `const agent = createAgent({ parallelism: 1, connectTimeoutMs: 5000, requestTimeoutMs: 5000 });`,
    `const res = await sendOnce(agent, { origin: ${JSON.stringify(origin)}, method: 'GET', path: '/', headers: {}, requestTimeoutMs: 5000 });`,
    `await agent.close();`,
    `console.log(JSON.stringify({ status: res.status, body: res.body, http2: loaded('http2'), tls: loaded('tls'), crypto: loaded('crypto') }));`,
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  await new Promise((resolve) => child.on('close', resolve));
  expect(err).toBe('');
  return JSON.parse(out) as unknown;
}
