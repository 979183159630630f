/**
 * Bundles the compiled CLI (dist/cli/main.js and everything it imports, our
 * modules and dependencies alike) into dist/bundle/, split at the lazy
 * command imports (the lazy imports inside a command are bundled as static
 * ones: scripts/eager-imports.mjs): a run resolves and loads a few dozen files
 * instead of a few hundred, which is most of the start-up before the first request. The
 * chunks sit two levels below the package root like dist/cli/, so paths read
 * at run time (package.json, schemas/) stay the same. bin/tenantform.js runs
 * the bundle; tests and library users import dist/ as before.
 */
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { inputsHash, stampPath } from './build-stamp.mjs';
import { eagerImportsPlugin } from './eager-imports.mjs';
import { fileURLToPath } from 'node:url';

/**
 * commander imports node:child_process for executable subcommands, which
 * tenantform has none of; loading it (and net, dgram, … behind it) costs every
 * run about 2.5 ms before the first request. Its import is served by a shim
 * that loads the module on first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/')
        ? { path: 'child-process', namespace: 'lazy' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents:
        "const load = () => process.getBuiltinModule('node:child_process');\n" +
        'export default { spawn: (...args) => load().spawn(...args) };\n',
      loader: 'js',
    }));
  },
};

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: [`${root}dist/cli/main.js`],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // pg is only for the PostgreSQL backend and looks for an optional native
  // module; it loads from node_modules when that backend is used.
  external: ['pg', 'pg-native'],
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __tenantformRequire } from 'node:module'; const require = __tenantformRequire(import.meta.url);",
  },
  plugins: [lazyChildProcess, eagerImportsPlugin],
  logLevel: 'warning',
  legalComments: 'linked',
});

// Last: what this dist/ was built from (scripts/prepare.mjs skips a build of the same).
writeFileSync(stampPath, `${inputsHash()}\n`);
