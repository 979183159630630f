// The package.json that `npm pack` and `npm publish` put in the tarball has no
// "prepare" script: it builds dist/ in a checkout (`npm ci`), while the tarball
// ships dist/ built, and npm 11 warns about every install script of a
// tarball dependency that the installing project's allowScripts does not cover
// (for a file: tarball only an absolute path would). prepack runs `strip`,
// postpack `restore`; both replace package.json atomically (rename), since
// other processes may read it meanwhile, and a strip after a pack that died
// before its restore first puts the saved file back.
import { existsSync, readFileSync, renameSync, writeFileSync, copyFileSync } from 'node:fs';

const FILE = 'package.json';
const SAVED = 'package.json.unpacked';

function restore() {
  if (existsSync(SAVED)) renameSync(SAVED, FILE);
}

function strip() {
  restore();
  const pkg = JSON.parse(readFileSync(FILE, 'utf8'));
  copyFileSync(FILE, SAVED);
  delete pkg.scripts.prepare;
  writeFileSync(`${FILE}.tmp`, `${JSON.stringify(pkg, null, 2)}\n`);
  renameSync(`${FILE}.tmp`, FILE);
}

const mode = process.argv[2];
if (mode === 'strip') strip();
else if (mode === 'restore') restore();
else {
  process.stderr.write('usage: node scripts/pack-manifest.mjs strip|restore\n');
  process.exit(1);
}
