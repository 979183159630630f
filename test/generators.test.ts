/**
 * The generators a contributor runs after changing a kind, a command or a
 * schema (npm run gen:schemas, npm run gen:docs) run on a clean copy of the
 * checkout (its tracked and untracked files, node_modules linked, no dist/
 * and no src/generated/: they run before npm run build) and change nothing
 * there: every file they write is committed as they would write it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutChanges, copyCheckout } from './helpers/recipes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let copy: string;

beforeAll(() => {
  copy = join(mkdtempSync(join(tmpdir(), 'tenantform-generators-')), 'checkout');
  copyCheckout(ROOT, copy, ['node_modules']);
});
afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

describe('the generators on a clean checkout', () => {
  it.each([
    ['gen:schemas', 'scripts/gen-kind-schemas.mjs'],
    ['gen:docs', 'scripts/gen-docs.mjs'],
  ])('npm run %s runs and changes nothing', (_name, script) => {
    execFileSync(process.execPath, [script], { cwd: copy, encoding: 'utf8', stdio: 'pipe' });
    expect(checkoutChanges(copy)).toBe('');
  });
});
