/**
 * What dist/ was built from: a hash of the build's inputs (the manifest and
 * lockfile, the TypeScript configs, src/ without what the build generates
 * into it, schemas/ and scripts/). scripts/bundle.mjs, the build's last step,
 * writes it to dist/.build-stamp; scripts/prepare.mjs compares the two to
 * skip a build of the very same inputs.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const stampPath = join(root, 'dist', '.build-stamp');

const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'schemas',
  'scripts',
];
/** Written by the build itself (scripts/gen-*.mjs), not an input. */
const GENERATED = join('src', 'generated');

/** The hash of the build's inputs as they are now (of the checkout at `base`, this one by default). */
export function inputsHash(base = root) {
  const hash = createHash('sha256');
  const visit = (path) => {
    const name = relative(base, path);
    if (name === GENERATED) return;
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) visit(join(path, entry));
      return;
    }
    hash.update(`${name.split(sep).join('/')}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  };
  for (const input of INPUTS) visit(join(base, input));
  return hash.digest('hex');
}
