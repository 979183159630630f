// Writes the generated references (scripts/docs-reference.mjs):
// docs/commands.md from the commands of src/cli/definitions.ts and
// docs/configuration-reference.md from schemas/. Run it after changing a
// command, a flag or a schema (npm run gen:docs); test/docs-reference.test.ts
// fails while a page is stale. The CLI is TypeScript: esbuild bundles
// src/cli/main.ts for this one run, into dist/gen-docs/ (two levels below the
// root, like dist/cli/, so that it finds package.json and schemas/).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  COMMANDS_PAGE,
  CONFIGURATION_PAGE,
  commandReference,
  configurationReference,
} from './docs-reference.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/gen-docs`;
mkdirSync(outdir, { recursive: true });
const outfile = `${outdir}/main.mjs`;
try {
  await build({
    entryPoints: [`${root}src/cli/main.ts`],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'warning',
  });
  const { buildProgram } = await import(pathToFileURL(outfile).href);
  const quiet = { write: () => true };
  const program = buildProgram({ stdout: quiet, stderr: quiet, env: {}, cwd: root }, () => {});
  const load = (file) => JSON.parse(readFileSync(`${root}schemas/${file}`, 'utf8'));
  const pages = {
    [COMMANDS_PAGE]: commandReference(program),
    [CONFIGURATION_PAGE]: configurationReference(load),
  };
  for (const [page, text] of Object.entries(pages)) {
    let old = '';
    try {
      old = readFileSync(`${root}${page}`, 'utf8');
    } catch {
      // a page not written yet
    }
    if (old === text) {
      console.log(`${page} is up to date`);
      continue;
    }
    writeFileSync(`${root}${page}`, text);
    console.log(`wrote ${page}`);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
