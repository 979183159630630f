/**
 * Registers a kind the package does not ship (a test's), from the test's
 * files alone: its declaration joins KINDS (registerKind), and its API
 * schemas, with config.schema.json, plan.schema.json and state.schema.json
 * regenerated for the longer kind list (scripts/kind-schemas.mjs, as
 * npm run gen:schemas would), are compiled here with ajv, the way
 * scripts/gen-validators.mjs compiles the package's, and added to the schema
 * checks (addSchemas). Vitest runs each test file in its own module registry,
 * so the kind exists only for the file that registers it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIND_SCHEMA_FILES, kindSchemas } from '../../scripts/kind-schemas.mjs';
import { KINDS, registerKind, type KindModule } from '../../src/resources/index.js';
import { addSchemas, type JsonSchema, type ValidateFunction } from '../../src/schemas/index.js';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as new (options: object) => {
  addFormat(name: string, format: unknown): void;
  addSchema(schema: JsonSchema): void;
  getSchema(id: string): ValidateFunction | undefined;
};
const formats = require('../../src/schemas/formats.cjs') as Record<string, unknown>;

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

function readSchemas(dir: string): Record<string, JsonSchema> {
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.schema.json'))
      .map((file) => [file, JSON.parse(readFileSync(join(dir, file), 'utf8')) as JsonSchema]),
  );
}

/** The validator name of a schema file, as gen-validators.mjs names them: user-role-list → userRoleList. */
function validatorName(file: string): string {
  return file.replace(/\.schema\.json$/, '').replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Adds `kind` (its schemas in `schemaDir`) to every check and list of kinds. */
export function registerExtraKind(kind: KindModule, schemaDir: string): void {
  const shipped = readSchemas(SCHEMAS);
  const own = readSchemas(schemaDir);
  const regenerated = kindSchemas([...KINDS, kind], shipped);
  const documents = { ...shipped, ...own, ...regenerated };
  const ajv = new Ajv2020({ allErrors: true, strict: true, discriminator: true });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  for (const document of Object.values(documents)) ajv.addSchema(document);
  const validators: Record<string, ValidateFunction> = {};
  for (const file of [...KIND_SCHEMA_FILES, ...Object.keys(own)]) {
    validators[validatorName(file)] = ajv.getSchema(file)!;
  }
  addSchemas({ validators, documents: { ...own, ...regenerated } });
  registerKind(kind);
}
