/**
 * Schemas: the compiled JSON Schema validators (generated at build time from
 * schemas/*.schema.json by scripts/gen-validators.mjs) and the translation of
 * ajv's errors into messages a person can act on.
 *
 * Owns: which schema checks which shape. Does not own: where a value came from
 * (config/ maps issue paths back to YAML positions) or what to do on failure.
 */
import { createRequire } from 'node:module';
import * as generated from '../generated/validators.js';
import { configurationKeysByAction } from './facts.js';
import type { AjvError, ValidateFunction } from '../generated/validate-function.js';

export type SchemaName = keyof typeof generated;

/** One schema violation: where in the checked value, and what is wrong. */
export interface SchemaIssue {
  /** Path from the checked value's root to the offending value (or to the unknown key). */
  path: (string | number)[];
  /** Human sentence, starting with the field's name: "limit must be at most 10000". */
  message: string;
  /** The JSON Schema keyword that failed (stable, for machine consumers). */
  keyword: string;
  /** True when the path points at a mapping key rather than a value (unknown property). */
  atKey?: boolean;
}

const validators: Readonly<Record<string, ValidateFunction>> = generated;

function validator(name: SchemaName): ValidateFunction {
  const validate = validators[name];
  if (!validate) throw new Error(`internal: no schema named ${name}`);
  return validate;
}

/** Validates `data` against a named schema; returns every issue, empty when valid. */
export function checkSchema(name: SchemaName, data: unknown): SchemaIssue[] {
  const validate = validator(name);
  if (validate(data)) return [];
  return describeErrors(validate.errors ?? [], data);
}

/**
 * The issues checkSchema gives at or below `data`'s top-level property
 * `key`, the errors elsewhere left undescribed: for checking one field
 * through a whole body's schema (an id through a create response's, whose
 * other required fields are absent), once per record of a large state.
 */
export function checkSchemaAt(name: SchemaName, data: unknown, key: string): SchemaIssue[] {
  const validate = validator(name);
  if (validate(data)) return [];
  const at = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  const errors = (validate.errors ?? []).filter(
    (e) => e.instancePath === at || e.instancePath.startsWith(`${at}/`),
  );
  return describeErrors(errors, data).filter((issue) => issue.path[0] === key);
}

/** True when `data` matches the named schema. */
export function matchesSchema(name: SchemaName, data: unknown): boolean {
  return validator(name)(data);
}

export function parsePointer(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : part));
}

function label(path: (string | number)[]): string {
  const last = path[path.length - 1];
  if (last === undefined) return 'the document';
  if (typeof last === 'number') {
    const parent = path[path.length - 2];
    return typeof parent === 'string' ? `${parent}[${last}]` : `item ${last}`;
  }
  return last;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'empty',
};

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

const FORMAT_WORDS: Record<string, string> = {
  'strict-https-uri': 'an absolute https:// URI with a host (http and other schemes are refused)',
  uri: 'an absolute URI (for example urn:example:token or https://example.com/token)',
  'date-time': 'an ISO 8601 date-time',
};

/** The value at `path` in `data`, or undefined. */
function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let current = data;
  for (const step of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}

const SELECTOR_FORMS =
  'client_id:<client_id>, client_id:<https CIMD URI>, cimd_clients, third_party_clients or default';

/**
 * Why a consumer_selector does not match: the first character outside
 * printable ASCII, when there is one (a look-alike letter, a no-break space,
 * a zero-width character: invisible or nearly so in the file), named by code
 * point and position; else the forms it may take.
 */
function selectorMessage(value: unknown): string {
  const odd = typeof value === 'string' ? explain.findCharacter(value, /[^!-~]/u) : null;
  return odd
    ? `consumer_selector has ${odd}; it must be ${SELECTOR_FORMS}`
    : `consumer_selector must be ${SELECTOR_FORMS}`;
}

/** "redirect_uri has no host: …", or the format's words for any other format. */
function formatMessage(name: string, format: string, value: unknown): string {
  if (format === 'strict-https-uri') {
    const problem = explain.httpsUriProblem(value);
    if (problem) return `${name} ${problem}`;
  }
  return `${name} must be ${FORMAT_WORDS[format] ?? `in format ${format}`}`;
}

function describe(error: AjvError, path: (string | number)[], value: unknown): SchemaIssue | undefined {
  const p = error.params;
  const name = label(path);
  switch (error.keyword) {
    case 'required':
      return {
        path,
        keyword: 'required',
        message: `missing required property "${String(p.missingProperty)}"`,
      };
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      return {
        path: [...path, key],
        keyword: 'additionalProperties',
        message: `unknown property "${key}"`,
        atKey: true,
      };
    }
    case 'type':
      return { path, keyword: 'type', message: `${name} must be ${typeWords(p.type)}` };
    case 'enum':
      return {
        path,
        keyword: 'enum',
        message: `${name} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'const':
      return { path, keyword: 'const', message: `${name} must be ${JSON.stringify(p.allowedValue)}` };
    case 'minimum':
      return { path, keyword: 'minimum', message: `${name} must be at least ${String(p.limit)}` };
    case 'maximum':
      return { path, keyword: 'maximum', message: `${name} must be at most ${String(p.limit)}` };
    case 'minLength':
      return {
        path,
        keyword: 'minLength',
        message: `${name} must be at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'} long`,
      };
    case 'maxLength':
      return {
        path,
        keyword: 'maxLength',
        message: `${name} must be at most ${String(p.limit)} characters long`,
      };
    case 'minItems':
      return {
        path,
        keyword: 'minItems',
        message: `${name} must list at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`,
      };
    case 'format':
      return { path, keyword: 'format', message: formatMessage(name, String(p.format), value) };
    case 'pattern':
      if (name === 'consumer_selector') return { path, keyword: 'pattern', message: selectorMessage(value) };
      return { path, keyword: 'pattern', message: `${name} must match ${String(p.pattern)}` };
    case 'discriminator':
      if (p.error === 'tag') {
        return {
          path: [...path, 'action'],
          keyword: 'type',
          message: `action must be one of: ${[...configurationKeysByAction().keys()].join(', ')}`,
        };
      }
      return {
        path: [...path, 'action'],
        keyword: 'enum',
        message: `action must be one of: ${[...configurationKeysByAction().keys()].join(', ')}`,
      };
    case 'oneOf':
    case 'if':
    case 'anyOf':
      return undefined; // the branch's own errors say more
    default:
      return { path, keyword: error.keyword, message: `${name} ${error.message ?? 'is invalid'}` };
  }
}

/** Turns ajv errors into deduplicated human issues, in document order of their paths. */
export function describeErrors(errors: readonly AjvError[], data?: unknown): SchemaIssue[] {
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const error of errors) {
    const path = parsePointer(error.instancePath);
    const issue = describe(error, path, valueAt(data, path));
    if (!issue) continue;
    const key = JSON.stringify(issue.path) + '\u0000' + issue.message;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  if (out.length === 0 && errors.length > 0) {
    const first = errors[0]!;
    const path = parsePointer(first.instancePath);
    out.push({ path, keyword: first.keyword, message: `${label(path)} does not match any allowed shape` });
  }
  return out;
}

/**
 * The spec's named string formats, as the validators use them (src/schemas/formats.cjs).
 * Named from one level up, like the validators do, so that the CLI's bundle
 * (dist/bundle/, beside dist/schemas/) finds the same file.
 */
const require = createRequire(import.meta.url);
const formats = require('../schemas/formats.cjs') as Record<string, RegExp | ((value: string) => boolean)> & {
  /** The words behind the formats (not a format itself: formats.cjs keeps it out of the enumerable exports). */
  explain: {
    httpsUriProblem(value: unknown): string | null;
    findCharacter(value: string, pattern: RegExp): string | null;
  };
};
const { explain } = formats;

/** True when `value` is in the named format, e.g. matchesFormat('strict-https-uri', 'https://…'). */
export function matchesFormat(name: string, value: string): boolean {
  const format = formats[name];
  if (!format) throw new Error(`unknown format ${name}`);
  return typeof format === 'function' ? format(value) : format.test(value);
}

export type * from './types.js';
export {
  configKeysAt,
  configOrderAt,
  configurationKeysByAction,
  configVariantsAt,
  requiredFields,
} from './facts.js';
export type { KeyOrder } from './key-order.js';
export type { JsonSchema } from './key-order.js';
export type { ValidateFunction } from '../generated/validate-function.js';
export { jsonSyntaxProblem } from './json-text.js';
