/**
 * Bundles the compiled CLI (dist/cli/main.js and everything it imports, our
 * modules and dependencies alike) into one CommonJS file, dist/bundle/cli.cjs.
 * bin/tenantform.js runs it through bin/code-cache.js, which keeps V8's code
 * for it on disk after a run, lazily compiled functions included: most of a
 * run's start-up before the first request was Node resolving and linking a
 * few dozen ES module files and V8 compiling the functions the run calls
 * (docs/performance.md). In the one file the modules a command imports with
 * import() are still evaluated only when imported. The file sits two levels
 * below the package root like dist/cli/, so paths read at run time
 * (package.json, schemas/) stay the same; tests and library users import
 * dist/ as before. undici, the YAML library and pg load from node_modules.
 */
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { inputsHash, stampPath } from './build-stamp.mjs';
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
  outfile: `${outdir}/cli.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  // ASCII only (esbuild escapes the rest): bin/code-cache.js reads the file as latin1.
  charset: 'ascii',
  // import() of a package becomes require(): the file runs as a script, where
  // only require() is at hand.
  supported: { 'dynamic-import': false },
  // pg is only for the PostgreSQL backend and looks for an optional native
  // module; it loads from node_modules when that backend is used.
  external: ['pg', 'pg-native'],
  // The modules find package.json and schemas/ from their own URL.
  define: { 'import.meta.url': '__tenantformBundleUrl' },
  banner: { js: "const __tenantformBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyChildProcess],
  logLevel: 'warning',
  legalComments: 'linked',
});

// Last: what this dist/ was built from (scripts/prepare.mjs skips a build of the same).
writeFileSync(stampPath, `${inputsHash()}\n`);
