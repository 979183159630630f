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
export function importSource(entry) {
  return bundled(entry, { entryPoints: [`${root}${entry}`] });
}

let bundles = 0;

/** The exports of each of `entries` (paths below the root), in one bundle: an array in their order. */
export async function importSources(entries) {
  const contents = entries.map((e, i) => `export * as m${i} from './${e}';`).join('\n');
  bundles += 1; // a file name of its own: import() caches by URL
  const all = await bundled(`sources-${bundles}`, { stdin: { contents, resolveDir: root, loader: 'js' } });
  return entries.map((_e, i) => all[`m${i}`]);
}

async function bundled(name, input) {
  const outdir = `${root}src/generated`;
  mkdirSync(outdir, { recursive: true });
  const outfile = `${outdir}/.import-source-${process.pid}-${name.replace(/\W+/g, '-')}.mjs`;
  try {
    await build({
      ...input,
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
