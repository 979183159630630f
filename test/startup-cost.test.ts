/**
 * Start-up cost: modules that plan and apply must not load. A config file in
 * the plain subset that the fast reader takes is read without the YAML
 * library (dozens of modules); a file that needs the full parser loads it.
 * The plan renderer loads the diff package's patch module, not its index.
 * Runs the built dist/ in a fresh process, whose loaded modules are the evidence.
 */
import { spawnSync } from 'node:child_process';
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
