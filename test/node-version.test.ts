import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module (it must parse on old Node), without type declarations
import { satisfiesRange } from '../bin/node-version.js';
import { tempDir } from './helpers/cli.js';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'tenantform.js');
const engines = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;
const satisfies = satisfiesRange as (range: string, version: string) => boolean;

/**
 * A Node binary on this machine that is older than engines.node: the
 * machine's own node, found on PATH outside node_modules/.bin (npm scripts
 * put the pinned runtime first) or in the usual places.
 */
function findOldNode(): { path: string; version: string } | null {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !d.includes('node_modules'));
  const candidates = [...dirs.map((d) => join(d, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (seen.has(real)) continue;
    seen.add(real);
    try {
      const version = execFileSync(real, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
      if (!satisfies(engines, version)) return { path: real, version };
    } catch {
      // not runnable: try the next one
    }
  }
  return null;
}

describe('engines range reader', () => {
  it.each([
    ['>=22.19', '22.19.0', true],
    ['>=22.19', '22.18.9', false],
    ['>=22.19', '20.20.2', false],
    ['>=22.19', '24.1.0', true],
    ['>=22', '22.0.0', true],
    ['>=22.19.1', '22.19.0', false],
    ['>=22.19 <25', '25.0.0', false],
    ['>= 22.19', '22.19.3', true],
    ['^22.19 || >=24', '23.5.0', false],
    ['^22.19 || >=24', '22.20.0', true],
    ['^22.19 || >=24', '24.0.0', true],
    ['~22.19', '22.20.0', false],
    ['22.x', '22.7.1', true],
    ['22.x', '23.0.0', false],
    ['>22', '22.9.0', false],
    ['>22', '23.0.0', true],
    ['*', '0.10.0', true],
    ['something odd', '1.0.0', true],
  ])('%s with Node %s: %s', (range, version, expected) => {
    expect(satisfies(range, version)).toBe(expected);
  });
});

const oldNode = findOldNode();

describe('start-up on a Node older than engines.node', () => {
  it.skipIf(oldNode === null)(
    `refuses at once with one sentence, before any state is touched (${oldNode ? `Node ${oldNode.version} at ${oldNode.path}` : `skipped: no Node older than ${engines} on this machine`})`,
    () => {
      const { dir, cleanup } = tempDir();
      try {
        mkdirSync(join(dir, 'config'));
        writeFileSync(
          join(dir, 'config', 'p.yaml'),
          'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 10 }\n',
        );
        const run = spawnSync(
          oldNode!.path,
          [bin, 'apply', 'config', '--auto-approve', '--base-url', 'http://127.0.0.1:9/api/v2'],
          { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, TENANTFORM_TOKEN: 't' } },
        );
        expect(run.stderr).toBe(`tenantform needs Node ${engines}; this is ${oldNode!.version}\n`);
        expect(run.stdout).toBe('');
        expect(run.status).toBe(1);
        expect(readdirSync(join(dir, 'config'))).toEqual(['p.yaml']); // no .tenantform, no lock
      } finally {
        cleanup();
      }
    },
  );

  it('runs on the current Node', () => {
    const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  // Start-up: later runs reuse V8's compiled code instead of compiling every module again.
  it("keeps compiled code in Node's compile cache, in the temp directory", () => {
    const { dir, cleanup } = tempDir();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir };
      delete env.NODE_COMPILE_CACHE;
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', env });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      const cache = join(dir, 'node-compile-cache');
      expect(existsSync(cache) ? readdirSync(cache).length : 0).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  });

  it('creates no directory when the temp directory does not exist (TMPDIR=/nonexistent)', () => {
    const { dir, cleanup } = tempDir();
    try {
      const missing = join(dir, 'nonexistent');
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: missing };
      delete env.NODE_COMPILE_CACHE;
      delete env.NODE_DISABLE_COMPILE_CACHE;
      const run = spawnSync(process.execPath, [bin, 'validate', join(dir, 'none.yaml')], {
        encoding: 'utf8',
        env,
        cwd: dir,
      });
      expect(run.stderr).toContain('none.yaml');
      expect(existsSync(missing)).toBe(false);
    } finally {
      cleanup();
    }
  });
});
