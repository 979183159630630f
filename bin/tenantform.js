#!/usr/bin/env node
// Kept to syntax that old Node versions parse: the version check below must
// run before anything that needs a newer runtime is loaded.
import { statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { loadWithCodeCache, runBits } from './code-cache.js';
import { keepYoungGenerationSmall, restoreYoungGenerationGrowth } from './heap.js';
import { nodeVersionProblem } from './node-version.js';

var problem = nodeVersionProblem(new URL('../package.json', import.meta.url), process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}

// Keep V8's compiled code on disk (Node's compile cache, in the system temp
// directory unless NODE_COMPILE_CACHE says where; NODE_DISABLE_COMPILE_CACHE=1
// turns it off): for the CLI's bundle through bin/code-cache.js, for the
// dependencies loaded from node_modules through Node. Later runs skip most of
// the parsing and compiling that dominates start-up. Node makes the cache's
// directory with its parents, so without NODE_COMPILE_CACHE the cache is used
// only when the temp directory exists (TMPDIR=/nonexistent must not create it).
var cacheDir = compileCacheWanted() ? enableCompileCache() : undefined;

function compileCacheWanted() {
  if (process.env.NODE_COMPILE_CACHE) return true;
  try {
    return statSync(tmpdir()).isDirectory();
  } catch {
    return false;
  }
}

/** Node's compile cache directory for this Node and its flags once enabled; undefined when it is not. */
function enableCompileCache() {
  if (typeof nodeModule.enableCompileCache !== 'function') return undefined;
  try {
    nodeModule.enableCompileCache();
    return nodeModule.getCompileCacheDir() || undefined;
  } catch {
    return undefined; // a cache that cannot be set up only costs speed
  }
}

// The CLI as one CommonJS bundle (scripts/bundle.mjs). main() watches signals
// and closed output itself; exitWhenFlushed ends the process once the output
// is written (see src/cli/process.ts for why it does not just return).
var cli;
try {
  cli = loadWithCodeCache(fileURLToPath(new URL('../dist/bundle/cli.cjs', import.meta.url)), cacheDir);
} catch (err) {
  internalError(err);
  process.exit(70);
}
// A young generation that stays small from here on: a third less peak memory
// on large plans (bin/heap.js). Set once the CLI's code is loaded, so that
// loading it runs at V8's usual pace; put back before the code cache is made.
var youngKeptSmall = keepYoungGenerationSmall(process.execArgv, process.env.NODE_OPTIONS);
process.on('exit', function () {
  cli.saveIfUseful(runBits(process.argv, nodeModule.createRequire(import.meta.url).cache), function () {
    if (youngKeptSmall) restoreYoungGenerationGrowth();
  });
});
cli.exports.main(process.argv).then(
  function (code) {
    return cli.exports.exitWhenFlushed(code);
  },
  function (err) {
    internalError(err);
    return cli.exports.exitWhenFlushed(70);
  },
);

function internalError(err) {
  process.stderr.write(
    'tenantform: internal error: ' + (err instanceof Error ? err.message : String(err)) + '\n',
  );
}
