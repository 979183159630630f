#!/usr/bin/env node
// Kept to syntax that old Node versions parse: the version check below must
// run before anything that needs a newer runtime is loaded.
import { nodeVersionProblem } from './node-version.js';

var problem = nodeVersionProblem(new URL('../package.json', import.meta.url), process.versions.node);
if (problem) {
  process.stderr.write(problem + '\n');
  process.exit(1);
}

// A reader that stops early (tenantform state list | head) is not an error.
[process.stdout, process.stderr].forEach(function (stream) {
  stream.on('error', function (err) {
    if (err.code === 'EPIPE') process.exit(process.exitCode || 0);
    throw err;
  });
});

import('../dist/cli/main.js')
  .then(function (cli) {
    return cli.main(process.argv);
  })
  .then(
    function (code) {
      process.exitCode = code;
    },
    function (err) {
      process.stderr.write(
        'tenantform: internal error: ' + (err instanceof Error ? err.message : String(err)) + '\n',
      );
      process.exitCode = 70;
    },
  );
