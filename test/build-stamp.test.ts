/**
 * The build records what it was built from, and `prepare` (npm ci, and npx
 * run in the checkout) builds only when that changed: npx's prepare in the
 * recipe copies must not rewrite the dist/ they share (scripts/prepare.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputsHash, root, stampPath } from '../scripts/build-stamp.mjs';

describe('the build stamp', () => {
  it('records the inputs of the dist/ the tests run (npm test built it)', () => {
    expect(existsSync(stampPath), 'run npm run build first').toBe(true);
    expect(readFileSync(stampPath, 'utf8').trim()).toBe(inputsHash());
  });

  it('prepare leaves a dist/ built from the same sources alone', () => {
    const main = join(root, 'dist', 'bundle', 'main.js');
    const before = statSync(main).mtimeMs;
    const out = execFileSync(process.execPath, [join(root, 'scripts', 'prepare.mjs')], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out).toBe('');
    expect(statSync(main).mtimeMs).toBe(before);
  });
});
