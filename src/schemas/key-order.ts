/**
 * Key order as the schemas declare it: for each object in the config, the
 * order of its `properties` (variants of a oneOf/anyOf merged in the order
 * they first name a key). `tenantform fmt` sorts mapping keys by it, so the
 * canonical layout follows the single source of API facts.
 */
import { readFileSync } from 'node:fs';

/** The key order of one object and of the values below it. */
export interface KeyOrder {
  keys: string[];
  /** The order inside the value of a key (an object, or the items of an array). */
  children: Map<string, KeyOrder>;
}

export type JsonSchema = { [key: string]: unknown };

/** The package's schemas/ directory: src/schemas and dist/schemas both sit two levels below the root. */
const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url);

function load(file: string, cache: Map<string, JsonSchema>): JsonSchema {
  let schema = cache.get(file);
  if (!schema) {
    schema = JSON.parse(readFileSync(new URL(file, SCHEMAS_DIR), 'utf8')) as JsonSchema;
    cache.set(file, schema);
  }
  return schema;
}

const shared = new Map<string, JsonSchema>();

/** One schema document of schemas/ by file name, parsed once. */
export function loadSchema(file: string): JsonSchema {
  return load(file, shared);
}

/** Follows a $ref ("file.json", "#/$defs/x" or "file.json#/properties/p") to its schema. */
function resolveRef(ref: string, file: string, cache: Map<string, JsonSchema>): [JsonSchema, string] {
  const [target, pointer = ''] = ref.split('#');
  const targetFile = target ? target : file;
  let node: unknown = load(targetFile, cache);
  for (const part of pointer.split('/').filter(Boolean)) node = (node as JsonSchema)[part];
  return [node as JsonSchema, targetFile];
}

function collect(schema: JsonSchema, file: string, cache: Map<string, JsonSchema>, into: KeyOrder): void {
  if (typeof schema.$ref === 'string') {
    const [target, targetFile] = resolveRef(schema.$ref, file, cache);
    collect(target, targetFile, cache, into);
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [key, value] of Object.entries(properties ?? {})) {
    if (!into.keys.includes(key)) into.keys.push(key);
    let child = into.children.get(key);
    if (!child) into.children.set(key, (child = { keys: [], children: new Map() }));
    collect(value, file, cache, child);
  }
  if (schema.items && typeof schema.items === 'object')
    collect(schema.items as JsonSchema, file, cache, into);
  for (const variant of [
    ...((schema.oneOf as JsonSchema[]) ?? []),
    ...((schema.anyOf as JsonSchema[]) ?? []),
  ])
    collect(variant, file, cache, into);
}

let configOrder: KeyOrder | null = null;

/** The key order of a config file (schemas/config.schema.json and the request schemas it refers to). */
export function configKeyOrder(): KeyOrder {
  if (!configOrder) {
    const order: KeyOrder = { keys: [], children: new Map() };
    collect(loadSchema('config.schema.json'), 'config.schema.json', shared, order);
    configOrder = order;
  }
  return configOrder;
}
