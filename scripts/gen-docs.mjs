// Writes the generated references (scripts/docs-reference.mjs):
// docs/commands.md from the commands of src/cli/definitions.ts,
// docs/configuration-reference.md from schemas/, the tables of the kinds in
// other pages (KIND_TABLES) from the kinds' declarations, and the route table
// of docs/emulator.md (ROUTE_SOURCES) from the emulator modules' `sources`.
// Run it after changing a command, a flag, a schema or an emulator module's
// sources (npm run gen:docs); test/docs-reference.test.ts
// fails while a page is stale. The CLI is TypeScript: scripts/import-source.mjs
// bundles src/cli/main.ts for this one run.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  COMMANDS_PAGE,
  CONFIGURATION_PAGE,
  commandReference,
  configurationReference,
  identityTable,
  KIND_TABLES,
  ROUTE_SOURCES,
  routeSourceTable,
  withRegion,
} from './docs-reference.mjs';
import { importSource } from './import-source.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { buildProgram } = await importSource('src/cli/main.ts');
const quiet = { write: () => true };
const program = buildProgram({ stdout: quiet, stderr: quiet, env: {}, cwd: root }, () => {});
const load = (file) => JSON.parse(readFileSync(`${root}schemas/${file}`, 'utf8'));
const resources = await importSource('src/resources/index.ts');
const pages = {
  [COMMANDS_PAGE]: commandReference(program),
  [CONFIGURATION_PAGE]: configurationReference(load),
};
for (const { page, region } of KIND_TABLES) {
  pages[page] = withRegion(readFileSync(`${root}${page}`, 'utf8'), region, identityTable(resources, parse));
}
const emulator = await importSource('src/emulator/index.ts');
pages[ROUTE_SOURCES.page] = withRegion(
  readFileSync(`${root}${ROUTE_SOURCES.page}`, 'utf8'),
  ROUTE_SOURCES.region,
  routeSourceTable(emulator),
);
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
