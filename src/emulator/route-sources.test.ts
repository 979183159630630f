import { describe, expect, it } from 'vitest';
import { rateLimitPolicy } from '../resources/index.js';
import { EMULATOR_KINDS } from './kinds/index.js';
import { EMULATOR_REFERENCES } from './references/index.js';
import { routeName, routeSourceRows } from './route-sources.js';

const MODULES = [...EMULATOR_KINDS, ...EMULATOR_REFERENCES];

describe('route sources', () => {
  it.each(MODULES.map((m) => [m.key, m] as const))(
    '%s says where the behaviour of each route it serves comes from, once',
    (_key, module) => {
      const named = module.sources.flatMap((s) => s.operations);
      expect([...named].sort()).toEqual(Object.keys(module.handlers).sort());
      expect(new Set(named).size).toBe(named.length);
      for (const { facts } of module.sources) {
        expect(facts.length).toBeGreaterThan(0);
        for (const [behaviour, source] of facts) {
          expect(behaviour).not.toBe('');
          expect(source).toMatch(/\b(spec|docs|SDK|observed|choice)\b/);
        }
      }
    },
  );

  it('names a route by method and path, a path parameter as {id}', () => {
    expect(routeName({ method: 'POST', path: '/users/{user_id}/permissions' })).toBe(
      'POST /users/{id}/permissions',
    );
  });

  it('puts the routes on the first row of their facts, and refuses an operation the module lacks', () => {
    const module = {
      kind: rateLimitPolicy,
      sources: [
        {
          operations: ['getRateLimitPolicy'],
          facts: [
            ['a', 'spec'],
            ['b', 'choice'],
          ] as const,
        },
      ],
    };
    expect(routeSourceRows([module]).slice(0, 2)).toEqual([
      ['`GET /rate-limit-policies/{id}`', 'a', 'spec'],
      ['', 'b', 'choice'],
    ]);
    expect(() => routeSourceRows([{ ...module, sources: [{ operations: ['nope'], facts: [] }] }])).toThrow(
      'the sources of rate_limit_policy name nope, which it does not declare',
    );
  });
});
