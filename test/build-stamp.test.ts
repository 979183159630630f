/**
 * The build records what it was built from, and `prepare` (npm ci, and npx
 * run in the checkout) builds only when that changed: npx's prepare in the
 * recipe copies must not rewrite the dist/ they share (scripts/prepare.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputsHash, root, stampPath } from '../scripts/build-stamp.mjs';
import { tempDir } from './helpers/cli.js';

describe('the build stamp', () => {
  it('records the inputs of the dist/ the tests run (npm test built it)', () => {
    expect(existsSync(stampPath), 'run npm run build first').toBe(true);
    expect(readFileSync(stampPath, 'utf8').trim()).toBe(inputsHash());
  });

  it('prepare leaves a dist/ built from the same sources alone', () => {
    // A stale dist/ would make prepare build here, under the other tests: say so instead.
    expect(readFileSync(stampPath, 'utf8').trim(), 'dist/ is stale: run npm run build').toBe(inputsHash());
    const main = join(root, 'dist', 'bundle', 'cli.cjs');
    const before = statSync(main).mtimeMs;
    const out = execFileSync(process.execPath, [join(root, 'scripts', 'prepare.mjs')], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out).toBe('');
    expect(statSync(main).mtimeMs).toBe(before);
  });

  it('changes with a source, a schema or the lockfile, not with what the build generates into src/', () => {
    const { dir, cleanup } = tempDir('tenantform-stamp-');
    try {
      const write = (file: string, text: string) => {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        writeFileSync(join(dir, file), text);
      };
      write('package.json', '{}');
      write('src/cli/main.ts', 'export {};');
      write('schemas/a.schema.json', '{}');
      const first = inputsHash(dir);
      write('src/generated/validators.js', 'generated');
      expect(inputsHash(dir)).toBe(first);
      for (const [file, text] of [
        ['src/cli/main.ts', 'export const x = 1;'],
        ['schemas/a.schema.json', '{"type":"object"}'],
        ['package-lock.json', '{}'],
      ]) {
        const before = inputsHash(dir);
        write(file!, text!);
        expect(inputsHash(dir), file).not.toBe(before);
      }
    } finally {
      cleanup();
    }
  });
});
