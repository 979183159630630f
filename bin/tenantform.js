#!/usr/bin/env node
// Kept to syntax that old Node versions parse: the version check below must
// run before anything that needs a newer runtime is loaded.
import { statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { keepYoungGenerationSmall } from './heap.js';
import { nodeVersionProblem } from './node-version.js';

var problem = nodeVersionProblem(new URL('../package.json', import.meta.url), process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}

// Keep V8's compiled code of our modules and dependencies on disk (Node's
// compile cache, in the system temp directory unless NODE_COMPILE_CACHE says
// where; NODE_DISABLE_COMPILE_CACHE=1 turns it off): later runs skip most of
// the parsing and compiling that dominates start-up. Node makes the cache's
// directory with its parents, so without NODE_COMPILE_CACHE the cache is used
// only when the temp directory exists (TMPDIR=/nonexistent must not create it).
if (typeof nodeModule.enableCompileCache === 'function' && compileCacheWanted()) {
  try {
    nodeModule.enableCompileCache();
  } catch {
    // a cache that cannot be set up only costs speed
  }
}

function compileCacheWanted() {
  if (process.env.NODE_COMPILE_CACHE) return true;
  try {
    return statSync(tmpdir()).isDirectory();
  } catch {
    return false;
  }
}

// The CLI as one bundle split per command (scripts/bundle.mjs): far fewer files
// to resolve and load than dist/cli/main.js and its imports. main() watches
// signals and closed output itself; exitWhenFlushed ends the process once the
// output is written (see src/cli/process.ts for why it does not just return).
import('../dist/bundle/main.js').then(
  function (cli) {
    // A young generation that stays small from here on: a third less peak
    // memory on large plans (bin/heap.js). Set once the CLI's code is loaded,
    // so that loading it runs at V8's usual pace.
    keepYoungGenerationSmall(process.execArgv, process.env.NODE_OPTIONS);
    return cli.main(process.argv).then(
      function (code) {
        return cli.exitWhenFlushed(code);
      },
      function (err) {
        internalError(err);
        return cli.exitWhenFlushed(70);
      },
    );
  },
  function (err) {
    internalError(err);
    process.exitCode = 70;
  },
);

function internalError(err) {
  process.stderr.write(
    'tenantform: internal error: ' + (err instanceof Error ? err.message : String(err)) + '\n',
  );
}
