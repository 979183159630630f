/**
 * bin/code-cache.js: the CLI's bundle runs with V8's code kept on disk, made
 * after a run so that it holds the functions the run called. Each case runs
 * a small CommonJS module in a child Node (the pinned runtime), as the CLI
 * runs its bundle; the last ones run the built CLI.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module (it must parse on old Node), without type declarations
import { runBits } from '../bin/code-cache.js';

const root = resolve(import.meta.dirname, '..');
const codeCache = pathToFileURL(join(root, 'bin', 'code-cache.js')).href;

/** A module whose functions are compiled only when run() calls them. */
const MODULE = (answer: number) => `
function square(x) { return x * x; }
function sum(xs) { let total = 0; for (const x of xs) total += square(x); return total; }
exports.run = () => sum([1, 2, 3]) + ${answer};
`;

let dir: string;
let cacheDir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenantform-code-cache-'));
  cacheDir = join(dir, 'cache');
  mkdirSync(cacheDir, { mode: 0o700 });
  file = join(dir, 'module.cjs');
  writeFileSync(file, MODULE(100));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Run = { value: number; fromCache: boolean; saved: boolean };

/** Loads the module through loadWithCodeCache in a child Node, calls run(), then saveIfUseful(did). */
function load(options: { uid?: number } = {}, did = 2): Run {
  const body = `
    import { loadWithCodeCache } from ${JSON.stringify(codeCache)};
    const loaded = loadWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)}, ${JSON.stringify(options)});
    const value = loaded.exports.run();
    process.stdout.write(JSON.stringify({ value, fromCache: loaded.fromCache, saved: loaded.saveIfUseful(${did}) }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', body], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Run;
}

describe('runBits', () => {
  it('names the command by one bit above the lowest, which says undici was loaded', () => {
    const bits = (argv: string[], loaded: string[] = []) =>
      (runBits as (argv: string[], loaded: Record<string, unknown>) => number)(
        argv,
        Object.fromEntries(loaded.map((name) => [name, {}])),
      );
    const plan = bits(['node', 'tenantform', 'plan', 'dir']);
    expect(plan & 1).toBe(0);
    expect(plan.toString(2).replace(/0/g, '')).toBe('1');
    expect(bits(['node', 'tenantform', 'plan', 'other'])).toBe(plan);
    expect(bits(['node', 'tenantform', 'apply', 'dir'])).not.toBe(plan);
    const undici = join('/x', 'node_modules', 'undici', 'lib', 'dispatcher', 'agent.js');
    expect(bits(['node', 'tenantform', 'plan'], ['/x/a.js', undici])).toBe(plan | 1);
    expect(bits(['node', 'tenantform'])).toBeGreaterThan(1);
  });
});

const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.endsWith('.v8cache'));
const cacheFile = () => join(cacheDir, cacheFiles()[0]!);

describe('the code cache (bin/code-cache.js)', () => {
  it('is made after a run without one, and the next run compiles from it and writes nothing', () => {
    expect(load()).toEqual({ value: 114, fromCache: false, saved: true });
    expect(cacheFiles()).toHaveLength(1);
    const made = statSync(cacheFile());
    expect(made.mode & 0o077).toBe(0);
    expect(load()).toEqual({ value: 114, fromCache: true, saved: false });
    expect(statSync(cacheFile()).mtimeMs).toBe(made.mtimeMs);
  });

  it('is not used for another source of the same length, and is made again', () => {
    load();
    writeFileSync(file, MODULE(200));
    expect(load()).toEqual({ value: 214, fromCache: false, saved: true });
    expect(load()).toEqual({ value: 214, fromCache: true, saved: false });
  });

  it('is not used when its data was changed or cut short', () => {
    load();
    const bytes = readFileSync(cacheFile());
    const at = bytes.length - 10;
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(cacheFile(), bytes);
    expect(load()).toEqual({ value: 114, fromCache: false, saved: true });
    writeFileSync(cacheFile(), readFileSync(cacheFile()).subarray(0, 100));
    expect(load()).toEqual({ value: 114, fromCache: false, saved: true });
    writeFileSync(cacheFile(), 'not a cache');
    expect(load()).toEqual({ value: 114, fromCache: false, saved: true });
    expect(load()).toEqual({ value: 114, fromCache: true, saved: false });
  });

  it('is made again by a run that did what no run behind it did, then holds both', () => {
    expect(load({}, 2).saved).toBe(true);
    expect(load({}, 2)).toEqual({ value: 114, fromCache: true, saved: false });
    expect(load({}, 2 | 1)).toEqual({ value: 114, fromCache: true, saved: true });
    expect(load({}, 2).saved).toBe(false);
    expect(load({}, 1).saved).toBe(false);
    expect(load({}, 4)).toEqual({ value: 114, fromCache: true, saved: true });
    expect(load({}, 2 | 1).saved).toBe(false);
  });

  it('is neither read nor written in a directory others may write to, or of another user', () => {
    chmodSync(cacheDir, 0o777);
    expect(load()).toEqual({ value: 114, fromCache: false, saved: false });
    expect(cacheFiles()).toEqual([]);
    chmodSync(cacheDir, 0o700);
    load();
    expect(load({ uid: process.getuid!() + 1 })).toEqual({ value: 114, fromCache: false, saved: false });
  });

  it('costs only speed when it cannot be written', () => {
    rmSync(cacheDir, { recursive: true });
    expect(load()).toEqual({ value: 114, fromCache: false, saved: false });
  });
});

const built = existsSync(join(root, 'dist', 'bundle', 'cli.cjs'));

describe.skipIf(!built)('the code cache of the built CLI', () => {
  /** Runs `tenantform validate examples` with Node's compile cache in `cacheDir`. */
  function validate(env: Record<string, string> = {}) {
    const run = spawnSync(process.execPath, [join(root, 'bin', 'tenantform.js'), 'validate', 'examples'], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: cacheDir, ...env },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Valid: /m);
  }
  const ours = () =>
    readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.v8cache'));

  it('is made by the first run and used by the next, the young-generation flag put back before it is made', () => {
    validate();
    expect(ours()).toHaveLength(1);
    const made = statSync(join(cacheDir, ours()[0]!));
    // V8 refuses code made under other flag values: a refused cache would be made again.
    validate();
    const after = statSync(join(cacheDir, ours()[0]!));
    expect([after.ino, after.mtimeMs]).toEqual([made.ino, made.mtimeMs]);
  });

  it('is not made with NODE_DISABLE_COMPILE_CACHE=1', () => {
    validate({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(ours()).toEqual([]);
  });
});
