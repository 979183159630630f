// Loads a module of src/ (TypeScript) for one run of a generator
// (gen-kind-schemas.mjs, gen-docs.mjs): esbuild bundles it into
// src/generated/ (git-ignored; two levels below the root like src/cli/, so
// that the module finds package.json, schemas/ and src/schemas/formats.cjs
// as it does in src/ and dist/), it is imported from there and the file is
// removed. The generated validators are left out (an empty module): the
// generators run before npm run build, on a checkout that has none, and only
// read declarations.
import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Resolves src/generated/validators.js to an empty module. */
const noValidators = {
  name: 'no-validators',
  setup(b) {
    b.onResolve({ filter: /\/generated\/validators\.js$/ }, () => ({
      path: 'validators',
      namespace: 'empty',
    }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/** The exports of `entry` (a path below the root: 'src/resources/index.ts'). */
export async function importSource(entry) {
  const outdir = `${root}src/generated`;
  mkdirSync(outdir, { recursive: true });
  const outfile = `${outdir}/.import-source-${process.pid}-${entry.replace(/\W+/g, '-')}.mjs`;
  try {
    await build({
      entryPoints: [`${root}${entry}`],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      plugins: [noValidators],
      logLevel: 'warning',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}
