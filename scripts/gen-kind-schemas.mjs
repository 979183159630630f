// Rewrites the parts of schemas/config.schema.json, plan.schema.json and
// state.schema.json that name the kinds, from the kinds' declarations
// (src/resources, KINDS; see scripts/kind-schemas.mjs). Run it after adding or
// changing a kind (npm run gen:schemas), then npm run build;
// test/kind-schemas.test.ts fails while the files are stale. The declarations
// are TypeScript: scripts/import-source.mjs bundles src/resources for this run.
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { importSource } from './import-source.mjs';
import { KIND_SCHEMA_FILES, kindSchemas } from './kind-schemas.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { KINDS } = await importSource('src/resources/index.ts');

const path = (file) => `${root}schemas/${file}`;
const documents = Object.fromEntries(
  KIND_SCHEMA_FILES.map((file) => [file, JSON.parse(readFileSync(path(file), 'utf8'))]),
);
const options = await prettier.resolveConfig(path('config.schema.json'));
const written = [];
for (const [file, document] of Object.entries(kindSchemas(KINDS, documents))) {
  if (isDeepStrictEqual(document, documents[file])) continue; // keep the file's layout when nothing changes
  const text = await prettier.format(JSON.stringify(document), { ...options, parser: 'json' });
  writeFileSync(path(file), text);
  written.push(file);
}
const kinds = KINDS.map((k) => k.name).join(', ');
console.log(
  written.length > 0 ? `wrote ${written.join(', ')} for ${kinds}` : `schemas/ is up to date for ${kinds}`,
);
