/**
 * Links the package's own command into node_modules/.bin of a checkout, as
 * npm does for a dependency: `npx tenantform` in the checkout (the README's
 * and docs' recipes) then runs bin/tenantform.js directly. Without the link,
 * npm 11's npx installs the checkout into its cache and runs `prepare` there,
 * rebuilding dist/ under any other run that is using it. Run by `prepare`;
 * does nothing where the package is itself installed as a dependency.
 */
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join('..', '..', 'bin', 'tenantform.js');
const binDir = join(root, 'node_modules', '.bin');
const link = join(binDir, 'tenantform');

function existing() {
  try {
    return lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not a link';
  } catch {
    return undefined;
  }
}

if (!root.split(sep).includes('node_modules')) {
  const current = existing();
  if (current !== target) {
    mkdirSync(binDir, { recursive: true });
    if (current !== undefined) rmSync(link, { force: true });
    symlinkSync(target, link);
  }
}
