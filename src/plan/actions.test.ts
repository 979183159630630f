import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_INFO, ACTIONS, SUMMARY_KEYS } from './actions.js';

const schema = JSON.parse(
  readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'),
) as {
  properties: { summary: { required: string[]; properties: Record<string, unknown> } };
  $defs: { change: { properties: { action: { enum: string[] } } } };
};

describe('the closed action set', () => {
  it('lists exactly the actions of plan.schema.json', () => {
    expect([...ACTIONS].sort()).toEqual([...schema.$defs.change.properties.action.enum].sort());
  });

  it('counts every action under its own summary key, in the schema summary order', () => {
    expect(SUMMARY_KEYS).toEqual(Object.keys(schema.properties.summary.properties));
    // Only update may be absent: format 2 plans, made before it existed, are still read.
    expect(SUMMARY_KEYS.filter((key) => !schema.properties.summary.required.includes(key))).toEqual([
      'update',
    ]);
    expect(new Set(SUMMARY_KEYS).size).toBe(ACTIONS.length);
  });

  it('gives every action its own symbol and legend position', () => {
    expect(new Set(ACTIONS.map((a) => ACTION_INFO[a].symbol)).size).toBe(ACTIONS.length);
    expect(new Set(ACTIONS.map((a) => ACTION_INFO[a].legendRank)).size).toBe(ACTIONS.length);
  });
});
