// Rewrites what names the kinds, from the kinds' declarations (src/resources,
// KINDS; see scripts/kind-schemas.mjs): the lists of the kinds (src/resources/shipped.ts:
// every file of src/resources that declares a kind; src/emulator/kinds/shipped.ts:
// the emulator module of each, found in src/emulator/kinds), the parts of schemas/config.schema.json,
// plan.schema.json and state.schema.json that name them, the words the
// command line uses for them (src/cli/kind-words.ts) and package.json's
// description. Run it after adding or changing a kind (npm run gen:schemas),
// then npm run build; test/kind-schemas.test.ts fails while a file is stale.
// The declarations are TypeScript: scripts/import-source.mjs bundles
// src/resources for this run.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { importSources } from './import-source.mjs';
import {
  emulatorModulesFor,
  isEmulatorModule,
  isKindDeclaration,
  KIND_REGISTRIES,
  KIND_SCHEMA_FILES,
  KIND_WORDS_FILE,
  kindSchemas,
  kindWords,
  kindWordsModule,
  listedNames,
  orderKinds,
  packageDescription,
  registryModule,
} from './kind-schemas.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

const path = (file) => `${root}schemas/${file}`;
const load = (file) => JSON.parse(readFileSync(path(file), 'utf8'));
const documents = Object.fromEntries(KIND_SCHEMA_FILES.map((file) => [file, load(file)]));
const written = [];

/** Writes `text` (formatted as prettier would) to `file` below the root when it says something else. */
async function write(file, text, parser) {
  const options = await prettier.resolveConfig(`${root}${file}`);
  const formatted = await prettier.format(text, { ...options, parser, filepath: `${root}${file}` });
  let old = '';
  try {
    old = readFileSync(`${root}${file}`, 'utf8');
  } catch {
    // not written yet
  }
  if (old === formatted) return;
  writeFileSync(`${root}${file}`, formatted);
  written.push(file);
}

/** The text of `file` below the root, or undefined when there is none. */
function readText(file) {
  try {
    return readFileSync(`${root}${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every export of the modules of `folder` (but its index and generated list) that `accept` takes. */
async function exportsIn(registry, accept) {
  const files = readdirSync(`${root}${registry.folder}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .filter((f) => f !== 'index.ts' && `${registry.folder}/${f}` !== registry.file)
    .sort();
  const modules = await importSources(files.map((f) => `${registry.folder}/${f}`));
  return files.flatMap((file, i) =>
    Object.entries(modules[i])
      .filter(([, value]) => accept(value))
      .map(([exportName, value]) => ({ file, exportName, value })),
  );
}

const { kinds: kindList, emulator: emulatorList } = KIND_REGISTRIES;
const declared = orderKinds(
  await exportsIn(kindList, isKindDeclaration),
  listedNames(readText(kindList.file)),
);
const served = emulatorModulesFor(
  declared.map((d) => d.value),
  await exportsIn(emulatorList, isEmulatorModule),
);
await write(
  kindList.file,
  registryModule(
    kindList,
    declared,
    'The kinds this package manages, in the order plans and state list them.',
  ),
  'typescript',
);
await write(
  emulatorList.file,
  registryModule(emulatorList, served, "The emulator's module of each kind, in the order of KINDS."),
  'typescript',
);
const KINDS = declared.map((d) => d.value);

for (const [file, document] of Object.entries(kindSchemas(KINDS, documents))) {
  if (isDeepStrictEqual(document, documents[file])) continue; // keep the file's layout when nothing changes
  await write(`schemas/${file}`, JSON.stringify(document), 'json');
}
const words = kindWords(KINDS, load);
await write(KIND_WORDS_FILE, kindWordsModule(words), 'typescript');
const pkg = readFileSync(`${root}package.json`, 'utf8');
await write(
  'package.json',
  pkg.replace(
    /^( {2}"description": ).*,$/m,
    (_m, head) => `${head}${JSON.stringify(packageDescription(words))},`,
  ),
  'json-stringify',
);

const kinds = KINDS.map((k) => k.name).join(', ');
console.log(written.length > 0 ? `wrote ${written.join(', ')} for ${kinds}` : `up to date for ${kinds}`);
