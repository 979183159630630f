import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRequestEvent, REQUEST_EVENTS } from './event-types.js';

describe('the events that count', () => {
  it('are the table docs/simulate.md shows, code for code, endpoint for endpoint', () => {
    const page = readFileSync(new URL('../../docs/simulate.md', import.meta.url), 'utf8');
    const rows = [...page.matchAll(/^\| `([a-z_]+)` \| `([^`]+)` \| (.+) \|$/gm)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(rows).toEqual(Object.entries(REQUEST_EVENTS).map(([code, e]) => [code, e.endpoint, e.what]));
  });

  it('count Authentication API outcomes, and neither Management API operations nor notices', () => {
    expect(['seccft', 'feccft', 's', 'f', 'fp', 'fu', 'sepft', 'fepft'].every(isRequestEvent)).toBe(true);
    expect(['sapi', 'fapi', 'api_limit', 'mgmt_api_read', 'du', 'toString'].some(isRequestEvent)).toBe(false);
  });
});
