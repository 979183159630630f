import { describe, expect, it } from 'vitest';
import { coreScalar, createVariableLookup, interpolate, lookupFromRecord } from './variables.js';
import { flagWords } from '../cli/run-words.js';

describe('createVariableLookup', () => {
  const lookup = createVariableLookup({
    vars: { A: 'from --var' },
    fileVars: [{ A: 'first file', B: 'first file', C: 'first file' }, { B: 'second file' }],
    env: { TENANTFORM_VAR_A: 'env', TENANTFORM_VAR_C: 'env', TENANTFORM_VAR_D: 'env', D: 'unprefixed' },
  });

  it.each([
    ['A', 'from --var', '--var wins over files and environment'],
    ['B', 'second file', 'a later --var-file wins over an earlier one'],
    ['C', 'first file', 'a --var-file wins over the environment'],
    ['D', 'env', 'the environment is read with the TENANTFORM_VAR_ prefix'],
  ])('resolves %s to %s: %s', (name, value) => {
    expect(lookup(name)).toBe(value);
  });

  it('returns undefined for a variable no source sets, and ignores inherited properties', () => {
    expect(lookup('E')).toBeUndefined();
    expect(lookup('toString')).toBeUndefined();
    expect(lookupFromRecord({})('constructor')).toBeUndefined();
  });
});

describe('interpolate', () => {
  const lookup = lookupFromRecord({ X: 'x-value', EMPTY: '' });

  it.each([
    ['no dollar', 'no dollar', false],
    ['${X}', 'x-value', true],
    ['a-${X}-b', 'a-x-value-b', false],
    ['${X}${X}', 'x-valuex-value', false],
    ['$${X}', '${X}', false],
    ['$$${X}', '$${X}', false],
    ['price: $5', 'price: $5', false],
    ['${EMPTY}', '', true],
    ['trailing $', 'trailing $', false],
  ])('turns %j into %j', (input, value, whole) => {
    expect(interpolate(input, lookup)).toEqual({ value, problems: [], wholeReference: whole });
  });

  it('reports problems with their offsets', () => {
    expect(interpolate('ab${MISSING}', lookup).problems).toEqual([
      {
        offset: 2,
        code: 'VAR_UNRESOLVED',
        message: expect.stringContaining('variable MISSING is not set'),
        wording: expect.anything(),
      },
    ]);
    expect(flagWords(interpolate('ab${MISSING}', lookup).problems[0]!.wording!)).toBe(
      'variable MISSING is not set: pass --var MISSING=VALUE, put it in a --var-file, or set TENANTFORM_VAR_MISSING',
    );
    expect(interpolate('x ${bad name}', lookup).problems[0]).toMatchObject({ offset: 2, code: 'VAR_SYNTAX' });
    expect(interpolate('x ${OPEN', lookup).problems[0]).toMatchObject({ offset: 2, code: 'VAR_SYNTAX' });
  });
});

describe('coreScalar', () => {
  it.each([
    ['42', 42],
    ['-7', -7],
    ['0x1F', 31],
    ['0o17', 15],
    ['2.5', 2.5],
    ['1e3', 1000],
    ['true', true],
    ['False', false],
    ['null', null],
    ['~', null],
    ['', null],
    ['.inf', Infinity],
    ['yes', 'yes'],
    ['007abc', '007abc'],
    ['client_id:abc', 'client_id:abc'],
  ])('reads %j as %j, as a plain YAML 1.2 scalar would be', (text, value) => {
    expect(coreScalar(text)).toEqual(value);
  });
});
