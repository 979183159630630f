/**
 * bin/heap.js keeps V8's young generation at its start size (see there why).
 * These run a child Node (the pinned runtime) that allocates two million small
 * objects and keeps them: left alone, V8 grows the young generation to tens of
 * megabytes; with the flag it stays at a few. A Node whose V8 stopped reading
 * the flag after start-up fails the first two cases.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module (it must parse on old Node), without type declarations
import { keepYoungGenerationSmall } from '../bin/heap.js';

const root = resolve(import.meta.dirname, '..');
const heapModule = pathToFileURL(join(root, 'bin', 'heap.js')).href;
const keepSmall = keepYoungGenerationSmall as (
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  set: (flags: string) => void,
) => boolean;
/** What keepYoungGenerationSmall would set in this process (it sets nothing here). */
function keep(execArgv: readonly string[], nodeOptions?: string): string[] {
  const set: string[] = [];
  keepSmall(execArgv, nodeOptions, (flags) => set.push(flags));
  return set;
}

/** Allocates two million kept objects, then prints the young generation's size in MB (`v8` in scope). */
const GROW = `
  const kept = [];
  for (let i = 0; i < 2e6; i++) kept.push({ i, s: 'x' + i, a: [i] });
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stdout.write(String(Math.round(space.space_size / 1e6)) + ' ' + kept.length + '\\n');
`;
const V8 = "import * as v8 from 'node:v8';";
const KEEP = `import { keepYoungGenerationSmall } from ${JSON.stringify(heapModule)};`;

function youngMb(args: string[], env: NodeJS.ProcessEnv = {}): number {
  const run = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  });
  expect(run.stderr).toBe('');
  const [mb, kept] = run.stdout.trim().split(' ').map(Number);
  expect(kept).toBe(2e6);
  return mb!;
}

const script = (body: string): string[] => ['--input-type=module', '-e', body];

describe('a young generation that stays small (bin/heap.js)', () => {
  it('grows to tens of megabytes when nothing is set (the workload proves the cases below)', () => {
    expect(youngMb(script(`${V8} ${GROW}`))).toBeGreaterThanOrEqual(24);
  });

  it('stays at a few megabytes once keepYoungGenerationSmall has run, though set after start-up', () => {
    const body = `${V8} ${KEEP}
      if (!keepYoungGenerationSmall(process.execArgv, process.env.NODE_OPTIONS)) throw new Error('not set');
      ${GROW}`;
    expect(youngMb(script(body))).toBeLessThanOrEqual(8);
  });

  it('is set by bin/tenantform.js before the command runs', () => {
    // A preloaded module allocates as the process exits, after `tenantform --version`.
    const preload = `data:text/javascript,${encodeURIComponent(`${V8} process.on('exit', () => { ${GROW} });`)}`;
    const run = spawnSync(
      process.execPath,
      ['--import', preload, join(root, 'bin', 'tenantform.js'), '--version'],
      {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [mb, kept] = run.stdout.trim().split('\n').at(-1)!.split(' ').map(Number);
    expect(kept).toBe(2e6);
    expect(mb).toBeLessThanOrEqual(8);
  });

  it('leaves a young-generation size the user gave Node alone', () => {
    expect(keep([], '--max-old-space-size=4096')).toEqual(['--semi-space-growth-factor=1']);
    expect(keep(['--max-semi-space-size=64'], undefined)).toEqual([]);
    expect(keep([], '--max-old-space-size=4096 --semi-space-growth-factor=4')).toEqual([]);
    expect(keep([], '--min_semi_space_size=2')).toEqual([]);
    const body = `${V8} ${KEEP}
      if (keepYoungGenerationSmall(process.execArgv, process.env.NODE_OPTIONS)) throw new Error('set');
      ${GROW}`;
    expect(youngMb(['--max-semi-space-size=32', ...script(body)])).toBeGreaterThanOrEqual(24);
  });
});
