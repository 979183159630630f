import { checkSchema, checkSchemaAt, matchesSchema } from '../schemas/index.js';
import { identityOf } from './kinds.js';
import type { Attributes, KindModule } from './kind.js';

/**
 * Whether a resource read back from a file (a state record, a journal or
 * rescue entry, a saved plan's `after`) is one tenantform could have made:
 * attributes that name the identity of its address and pass the config
 * schema of its kind (the API's request rules), and an id of its kind's form.
 */

function quote(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

function pathText(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${part}`),
    '',
  );
}

/** The config item a resource's attributes come from: the shape config.schema.json checks (an entry of its own for a grouped kind). */
function configItem(kind: KindModule, attributes: Attributes): unknown {
  const group = kind.config.group;
  if (!group) return attributes;
  const { [group.by]: owner, ...member } = attributes;
  return { [group.by]: owner, [group.list]: [member] };
}

/**
 * What is wrong with `attributes` as those of the resource `identity` of
 * `kind`, each problem starting with `label` (e.g. "after" or
 * "attributes"): an identity part other than the address's, a value the
 * config schema refuses. Empty when nothing is.
 */
export function attributeProblems(
  kind: KindModule,
  identity: readonly string[],
  attributes: Attributes,
  label: string,
  /** The attributes are known to pass the config schema (configSchemaPasses): only the identity is checked. */
  schemaPassed = false,
): string[] {
  const problems: string[] = [];
  kind.identityFields.forEach((field, i) => {
    const value = attributes[field];
    if (value !== identity[i]) {
      problems.push(`${label}.${field} is ${quote(value)} but the address says ${quote(identity[i])}`);
    }
  });
  if (problems.length > 0) return problems;
  const group = kind.config.group;
  const issues = schemaPassed
    ? []
    : checkSchema('config', { [kind.config.key]: [configItem(kind, attributes)] });
  for (const issue of issues) {
    // Paths start with [key, 0]; a grouped kind's member fields sit under its list's [0] (permissions[0]).
    let rest = issue.path.slice(2);
    if (group && rest[0] === group.list) rest = rest.slice(2);
    problems.push(`${label}${pathText(rest)}: ${issue.message}`);
  }
  // identityOf is how the executor reads the identity; it must agree too.
  const named = identityOf(kind, attributes);
  if (problems.length === 0 && named.some((part, i) => part !== identity[i])) {
    problems.push(`${label} does not name the resource of its address`);
  }
  return problems;
}

/** Records checked in one document by configSchemaPasses. */
const SCHEMA_BATCH = 256;

/**
 * True when the attributes of every one of `records` (resources of `kind`)
 * pass the config schema: checked SCHEMA_BATCH records to a document, for
 * reading a large state, where checking each record on its own costs a
 * document per record. One document of them all would hold a config item
 * per record (a copy, for a grouped kind) until its check ends: for a state
 * of 100,000 records, megabytes that outlive the young generation and stay
 * in the heap until a full collection. When it is false, attributeProblems
 * tells which.
 */
export function configSchemaPasses(kind: KindModule, records: readonly Attributes[]): boolean {
  for (let from = 0; from < records.length; from += SCHEMA_BATCH) {
    const items = records.slice(from, from + SCHEMA_BATCH).map((a) => configItem(kind, a));
    if (!matchesSchema('config', { [kind.config.key]: items })) return false;
  }
  return true;
}

/** What is wrong with `id` as a server id of `kind` (null is always allowed: adopted, or a kind without ids). */
export function idProblem(kind: KindModule, id: string | null): string | null {
  if (id === null) return null;
  if (kind.id === null) return `id ${quote(id)} is set, but a ${kind.title.one} has no server id`;
  return isKindId(kind, id) ? null : `id ${quote(id)} is not a ${kind.title.one} id (${kind.id.description})`;
}

/**
 * Whether `id` has the shape of `kind`'s server ids: the shape the `id`
 * property of its create operation's response schema gives (schemas/, the
 * one source of API facts; the validator is the compiled one).
 */
export function isKindId(kind: KindModule, id: string): boolean {
  const response = kind.operations.create.response;
  if (kind.id === null || !response) return false;
  return checkSchemaAt(response, { id }, 'id').length === 0;
}
