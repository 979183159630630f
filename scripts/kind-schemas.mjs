/**
 * The parts of the schemas that name the kinds, made from the kinds'
 * declarations (src/resources, KINDS): the lists of config.schema.json (one
 * per kind, its items the kind's request schema or, for a grouped kind, an
 * entry naming the owner once) and every `kind` enum of plan.schema.json and
 * state.schema.json. Everything else of those documents is kept as written.
 *
 * scripts/gen-kind-schemas.mjs writes the result into schemas/ (npm run
 * gen:schemas); test/kind-schemas.test.ts fails when the files are stale; a
 * test that registers a kind of its own compiles the documents this returns
 * for its longer list.
 */

/** The files whose kind-naming parts come from the declarations. */
export const KIND_SCHEMA_FILES = ['config.schema.json', 'plan.schema.json', 'state.schema.json'];

/** A grouped kind's entry in config.schema.json's $defs: `user_permissions_entry`. */
function entryName(kind) {
  return `${kind.config.key}_entry`;
}

function configDocument(kinds, document) {
  const properties = {};
  const defs = {};
  for (const kind of kinds) {
    const { key, description, schema, group } = kind.config;
    const items = group ? { $ref: `#/$defs/${entryName(kind)}` } : { $ref: schema };
    properties[key] = { description, type: ['array', 'null'], items };
    if (group) {
      defs[entryName(kind)] = {
        type: 'object',
        required: [group.by, group.list],
        additionalProperties: false,
        properties: { [group.by]: { ...group.byField }, [group.list]: { $ref: schema } },
      };
    }
  }
  const { $defs: _old, ...rest } = document;
  return { ...rest, properties, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) };
}

/** `value` with every `kind` property's enum set to `names`. */
function withKindEnums(value, names) {
  if (Array.isArray(value)) return value.map((v) => withKindEnums(v, names));
  if (typeof value !== 'object' || value === null) return value;
  const out = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'properties' && child && typeof child.kind === 'object' && Array.isArray(child.kind.enum)) {
      out[key] = withKindEnums({ ...child, kind: { ...child.kind, enum: [...names] } }, names);
    } else {
      out[key] = withKindEnums(child, names);
    }
  }
  return out;
}

/**
 * The documents of KIND_SCHEMA_FILES for `kinds` (declarations, in KINDS
 * order), from the current ones (`documents`: file name → parsed schema).
 */
export function kindSchemas(kinds, documents) {
  const names = kinds.map((k) => k.name);
  return {
    'config.schema.json': configDocument(kinds, documents['config.schema.json']),
    'plan.schema.json': withKindEnums(documents['plan.schema.json'], names),
    'state.schema.json': withKindEnums(documents['state.schema.json'], names),
  };
}
