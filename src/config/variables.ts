/**
 * ${NAME} interpolation in scalar values.
 *
 * Rules (README material):
 * - `${NAME}` is replaced by the variable's value; NAME is letters, digits and
 *   `_`, not starting with a digit.
 * - Sources, highest first: --var NAME=value, --var-file FILE (later files win),
 *   environment TENANTFORM_VAR_NAME.
 * - `$${` writes a literal `${`; any other `$` is kept as is.
 * - Only values are interpolated, never mapping keys.
 * - An unset variable is an error at the reference's position.
 */
import { plainText, setting, words, type Wording } from '../resources/index.js';
import type { VariableLookup } from './types.js';

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_PREFIX = 'TENANTFORM_VAR_';

/** A problem in one string, at an offset into the string's value. */
export interface InterpolationProblem {
  offset: number;
  message: string;
  code: 'VAR_UNRESOLVED' | 'VAR_SYNTAX';
  /** The message as a wording, when it names a setting (`message` names it neutrally). */
  wording?: Wording;
}

export interface Interpolation {
  value: string;
  problems: InterpolationProblem[];
  /** True when the input was exactly one reference, `${NAME}`, and it resolved. */
  wholeReference: boolean;
}

/** Builds the lookup with the documented precedence: vars, then var files (last wins), then environment. */
export function createVariableLookup(sources: {
  vars?: Readonly<Record<string, string>>;
  fileVars?: readonly Readonly<Record<string, string>>[];
  env?: Readonly<Record<string, string | undefined>>;
}): VariableLookup {
  const merged = new Map<string, string>();
  for (const file of sources.fileVars ?? []) for (const [k, v] of Object.entries(file)) merged.set(k, v);
  for (const [k, v] of Object.entries(sources.vars ?? {})) merged.set(k, v);
  const env = sources.env ?? {};
  return (name) => {
    const found = merged.get(name);
    if (found !== undefined) return found;
    return Object.prototype.hasOwnProperty.call(env, ENV_PREFIX + name) ? env[ENV_PREFIX + name] : undefined;
  };
}

/** Turns a plain map into a lookup that ignores inherited properties. */
export function lookupFromRecord(record: Readonly<Record<string, string>>): VariableLookup {
  return (name) => (Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined);
}

/** Replaces every ${NAME} in `input`; problems carry offsets into `input`. */
export function interpolate(input: string, lookup: VariableLookup): Interpolation {
  if (!input.includes('$')) return { value: input, problems: [], wholeReference: false };
  const problems: InterpolationProblem[] = [];
  let out = '';
  let i = 0;
  let references = 0;
  while (i < input.length) {
    const dollar = input.indexOf('$', i);
    if (dollar < 0) {
      out += input.slice(i);
      break;
    }
    out += input.slice(i, dollar);
    if (input.startsWith('$${', dollar)) {
      out += '${';
      i = dollar + 3;
      continue;
    }
    if (!input.startsWith('${', dollar)) {
      out += '$';
      i = dollar + 1;
      continue;
    }
    const close = input.indexOf('}', dollar + 2);
    if (close < 0) {
      problems.push({
        offset: dollar,
        code: 'VAR_SYNTAX',
        message: 'unterminated variable reference "${": close it with "}", or write "$${" for a literal "${"',
      });
      out += input.slice(dollar);
      break;
    }
    const name = input.slice(dollar + 2, close);
    references += 1;
    i = close + 1;
    if (!VARIABLE_NAME.test(name)) {
      problems.push({
        offset: dollar,
        code: 'VAR_SYNTAX',
        message: `invalid variable name "${name}": use letters, digits and _, not starting with a digit (write "$\${" for a literal "\${")`,
      });
      out += input.slice(dollar, close + 1);
      continue;
    }
    const value = lookup(name);
    if (value === undefined) {
      const wording = words`variable ${name} is not set: pass ${setting('variable')} ${name}=VALUE, put it in a ${setting('variableFile')}, or set ${ENV_PREFIX}${name}`;
      problems.push({ offset: dollar, code: 'VAR_UNRESOLVED', message: plainText(wording), wording });
      out += input.slice(dollar, close + 1);
      continue;
    }
    out += value;
  }
  const wholeReference =
    problems.length === 0 && references === 1 && /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(input);
  return { value: out, problems, wholeReference };
}

const NULL = /^(?:~|null|Null|NULL)?$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;

/**
 * The value a plain YAML 1.2 scalar with this text has under the core schema:
 * null, a boolean, a number, or the string itself. Used when a plain scalar is
 * exactly `${NAME}`, so that `limit: ${LIMIT}` is a number, as if written in place.
 */
export function coreScalar(text: string): string | number | boolean | null {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text) || FLOAT.test(text)) return Number(text);
  if (OCT.test(text)) return parseInt(text.slice(2), 8);
  if (HEX.test(text)) return parseInt(text.slice(2), 16);
  if (INF.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (NAN.test(text)) return NaN;
  return text;
}
