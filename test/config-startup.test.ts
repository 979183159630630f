/**
 * Start-up cost of reading a config: a file in the plain subset that the fast
 * reader takes is read without loading the YAML library (dozens of modules,
 * paid by every plan and apply); a file that needs the full parser loads it.
 * Runs the built dist/ in a fresh process, whose module cache is the evidence.
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
