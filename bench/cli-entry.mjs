/**
 * The CLI as the durability figure runs it: the same main() that
 * bin/tenantform.js runs, with the file state store injected through the
 * CommandIO seam. With BENCH_JOURNAL_FSYNC=0 the store skips the fsync of
 * journal appends (the journal is still written); the shipped CLI has no such
 * switch. Both sides of the figure start through this file, so they differ in
 * that one setting only.
 */
import { main } from '../dist/cli/main.js';
import { createFileStateStore } from '../dist/state/index.js';

const fsyncJournal = process.env.BENCH_JOURNAL_FSYNC !== '0';
process.exitCode = await main(process.argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  openFileStore: (path) => createFileStateStore(path, { fsyncJournal }),
});
