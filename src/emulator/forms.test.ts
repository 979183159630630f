import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.js';
import { parseForm } from './forms.js';

describe('form bodies', () => {
  it('nests bracket keys and turns 0..n-1 keys into lists', () => {
    const text =
      'permissions[1][permission_name]=b&permissions[0][permission_name]=a' +
      '&permissions[0][resource_server_identifier]=x&permissions[1][resource_server_identifier]=y';
    expect(parseForm(text)).toEqual({
      permissions: [
        { permission_name: 'a', resource_server_identifier: 'x' },
        { permission_name: 'b', resource_server_identifier: 'y' },
      ],
    });
  });

  it.each([
    ['10', 10],
    ['-3', -3],
    ['1.5', '1.5'],
    ['ten', 'ten'],
  ])('turns limit=%s into %o only where the schema wants an integer', (value, expected) => {
    const doc = parseForm(`configuration[action]=block&configuration[limit]=${value}&consumer_selector=10`, [
      ['configuration', 'limit'],
    ]);
    expect(doc).toEqual({ configuration: { action: 'block', limit: expected }, consumer_selector: '10' });
  });

  it('decodes + and percent escapes', () => {
    expect(parseForm('name=a+b%2Fc%26d')).toEqual({ name: 'a b/c&d' });
  });

  it('keeps __proto__ as a plain (unknown) property', () => {
    const doc = parseForm('__proto__[polluted]=yes') as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['empty brackets', 'permissions[][permission_name]=a'],
    ['a repeated key', 'a=1&a=2'],
    ['a value and a mapping under one name', 'configuration=x&configuration[action]=allow'],
    ['gaps in indices', 'p[0]=a&p[2]=b'],
    ['an unbalanced bracket', 'a[b=1'],
  ])('answers 400 for %s', (_name, text) => {
    expect(() => parseForm(text)).toThrow(HttpError);
  });

  it('reads an empty form as an empty object', () => {
    expect(parseForm('')).toEqual({});
  });
});
