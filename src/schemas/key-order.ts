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
  /**
   * When the object is one of several variants chosen by a property (a
   * `discriminator`): that property and, per value of it, the keys its variant
   * allows (a rate limit policy's configuration: action block → action, limit).
   */
  variants?: { property: string; keys: Map<string, string[]> };
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
let configOrder: KeyOrder | null = null;

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
  const tag = (schema.discriminator as { propertyName?: string } | undefined)?.propertyName;
  if (tag && Array.isArray(schema.oneOf)) into.variants = variantKeys(tag, schema.oneOf as JsonSchema[]);
}

/** Per value of the discriminating property, the keys of the variant it picks. */
export function variantKeys(
  property: string,
  variants: readonly JsonSchema[],
): NonNullable<KeyOrder['variants']> {
  const keys = new Map<string, string[]>();
  for (const variant of variants) {
    const properties = (variant.properties ?? {}) as Record<string, JsonSchema>;
    const tag = properties[property] ?? {};
    const values = tag.const !== undefined ? [tag.const] : ((tag.enum as unknown[]) ?? []);
    for (const value of values) keys.set(String(value), Object.keys(properties));
  }
  return { property, keys };
}

/** The key order of a config file (schemas/config.schema.json and the request schemas it refers to). */
export function configKeyOrder(): KeyOrder {
  if (!configOrder) {
    const order: KeyOrder = { keys: [], children: new Map() };
    collect(loadSchema('config.schema.json'), 'config.schema.json', shared, order);
    configOrder = order;
  }
  return configOrder;
}
