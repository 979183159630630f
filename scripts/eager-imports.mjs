/**
 * For the bundle (scripts/bundle.mjs): the dynamic imports inside a command
 * become static imports. Each import() target is an entry point to esbuild,
 * and esbuild splits the bundle by which entry points reach a module, so the
 * lazy imports of dist/run, dist/plan, dist/state… cut it into over a hundred
 * files, and an apply loaded 64 of them one by one. Node pays for each ES module
 * file it loads (resolving, reading, compiling, linking: about 0.2 ms), so
 * with the command's own code loaded with the command, a plan loads 41 files
 * instead of 59 and an apply 41 instead of 64 (bench: latency-bound apply).
 *
 * Left lazy: the commands themselves (dist/cli/main.js is not rewritten), and
 * the modules in KEEP_LAZY, which a run of the command that imports them often
 * does not need and which cost more than a file to load (the YAML library,
 * undici, pg, the emulator, the importers of other tools' files). A
 * bare specifier (a package) and a computed one are left as they are.
 */
import { dirname, resolve } from 'node:path';

/** Modules (below dist/) that stay lazily imported. */
export const KEEP_LAZY = [
  'config/yaml-lib.js',
  'api/index.js',
  'state/pg/index.js',
  'emulator/index.js',
  'config/from-deploy-cli.js',
  'config/from-terraform.js',
  'run/export-sources.js',
  'run/deploy-cli-source.js',
];

const DYNAMIC_IMPORT = /\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g;

/**
 * `source` (the compiled module `file`) with each import('./relative') of a
 * module not in KEEP_LAZY replaced by the namespace of a static import of it,
 * already resolved as import() would resolve it; null when nothing changes.
 */
export function eagerImports(source, file) {
  const added = [];
  const contents = source.replace(DYNAMIC_IMPORT, (call, _quote, specifier) => {
    const target = resolve(dirname(file), specifier).split('\\').join('/');
    if (KEEP_LAZY.some((lazy) => target.endsWith(`/dist/${lazy}`))) return call;
    const name = `__eagerImport${added.length}`;
    added.push(`import * as ${name} from ${JSON.stringify(specifier)};`);
    return `Promise.resolve(${name})`;
  });
  return added.length === 0 ? null : `${added.join('\n')}\n${contents}`;
}

/** The esbuild plugin: every dist/ module but the CLI's entry (which splits the commands) rewritten. */
export const eagerImportsPlugin = {
  name: 'eager-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      if (/[\\/]dist[\\/]cli[\\/]main\.js$/.test(args.path)) return undefined;
      const { readFile } = await import('node:fs/promises');
      const contents = eagerImports(await readFile(args.path, 'utf8'), args.path);
      return contents === null ? undefined : { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
