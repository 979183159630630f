/**
 * npm's "prepare" in a checkout: builds dist/ (npm run build) unless it was
 * built from exactly these sources (scripts/build-stamp.mjs). npm 11's npx,
 * run in this checkout, installs the checkout into its cache and runs
 * prepare first; a second build there would rewrite dist/ under any run
 * using it (the docs' recipes run side by side), and cost a reader's first
 * `npx tenantform` a build after `npm ci` made one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { inputsHash, stampPath } from './build-stamp.mjs';

function builtFrom() {
  try {
    return readFileSync(stampPath, 'utf8').trim();
  } catch {
    return undefined;
  }
}

if (builtFrom() !== inputsHash()) {
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (build.error) {
    process.stderr.write(`prepare: could not run npm run build: ${build.error.message}\n`);
    process.exit(1);
  }
  process.exit(build.status ?? 1);
}
